// The BullMQ sandboxed processor of `toolformer worker` (worker-command.ts): BullMQ forks one process per core and
// imports this file in each; tsx is registered in-process first, then the TypeScript processor is loaded.
import './tsx-entry.mjs';

const { processChunk } = await import('./queue-processor.ts');
export default processChunk;
