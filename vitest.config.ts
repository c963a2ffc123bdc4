import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['pipeline/**/*.test.ts', 'web/**/*.test.ts', 'corpus/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Model-backed tests are CPU heavy; 2 cores on CI.
    maxWorkers: 2,
  },
});
