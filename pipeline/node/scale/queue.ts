export async function runQueued(_: Record<string, unknown> & { onProgress: (p: { docs: number; kept: number }) => void }): Promise<never> {
  throw new Error('--queue: not yet');
}
