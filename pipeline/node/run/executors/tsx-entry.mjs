// Entry point of a forked worker process (embedded pool and BullMQ sandbox alike): registers tsx's loader in-process,
// as bin.mjs does, then loads the TypeScript module named by the caller, so the child needs no loader flags.
import { register } from 'tsx/esm/api';

register();
