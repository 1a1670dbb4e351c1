import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Passing tests stay quiet; a failing test shows the log lines it produced.
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'] },
      },
      {
        extends: true,
        // Each suite boots serverless offline (esbuild builds every function): one at a time.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
    ],
  },
});
