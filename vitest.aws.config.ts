import { defineConfig } from 'vitest/config';

/**
 * `npm run test:aws`: the real AWS SDK clients against moto's server (test/aws/setup.ts). Kept
 * out of `npm test`, which must pass on a machine without moto.
 */
export default defineConfig({
  test: {
    name: 'aws',
    include: ['test/aws/**/*.test.ts'],
    globalSetup: ['test/aws/setup.ts'],
    silent: 'passed-only',
    testTimeout: 30_000,
    hookTimeout: 240_000,
    // One moto for every file: files run one at a time, each on its own resources.
    fileParallelism: false,
  },
});
