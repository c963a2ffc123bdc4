#!/usr/bin/env node
// `toolformer` as npm links it into node_modules/.bin (this folder is a workspace of the repository): the CLI itself
// is ../bin.mjs. Node runs this file from its real path, so the import is found from here.
import '../bin.mjs';
