// A worker process of `annotate --workers N` (see pool.ts): tsx registered in-process, then the TypeScript child.
import './tsx-entry.mjs';

await import('./pool-child.ts');
