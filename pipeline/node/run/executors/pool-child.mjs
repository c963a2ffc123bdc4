// A worker process of `annotate --workers N` (see pool.ts): the watch on the parent first (child-guard.mjs), then
// tsx registered in-process, then the TypeScript child.
import '../../system/child-guard-start.mjs';
import './tsx-entry.mjs';

await import('./pool-child.ts');
