// Installs child-guard.mjs's watch on the parent as a process's very first code: BullMQ's chunk processes get it as
// `--import` (worker-command.ts), before BullMQ's own main.js, so no start-up window is left unwatched.
import { guardChild } from './child-guard.mjs';

guardChild();
