export async function workerCommand(_: unknown): Promise<void> {
  throw new Error('worker: not yet');
}
