/** The first line of the long-running commands (scripts/local/node-line.ts). */
import { describe, expect, it } from 'vitest';
import { lambdaRuntime, nodeLine } from '../../../../scripts/local/node-line.ts';

describe('the Node line', () => {
  it("reads the functions' runtime from serverless.yml", () => {
    expect(lambdaRuntime()).toMatch(/^nodejs\d+\.x$/);
    expect(lambdaRuntime('provider:\n  name: aws\n  runtime: nodejs24.x\n')).toBe('nodejs24.x');
    expect(() => lambdaRuntime('provider:\n  name: aws\n')).toThrow('no provider.runtime');
  });

  it('names the Node that runs the command, and says so when it is not the runtime’s major', () => {
    expect(nodeLine('the local stack', 'v24.22.3', 'nodejs24.x')).toBe(
      "Node v24.22.3 runs the local stack (the functions' runtime: nodejs24.x).",
    );
    expect(nodeLine('the local stack', 'v22.12.0', 'nodejs24.x')).toBe(
      'Node v22.12.0 runs the local stack, not Node 24 as deployed (nodejs24.x): install Node 24 (README, "Quickstart").',
    );
    expect(nodeLine('the local stack', 'v2.0.0', 'nodejs24.x')).toMatch(/not Node 24/);
  });

  it('is the Node of npm test: the runtime’s major', () => {
    expect(nodeLine('the tests')).toBe(
      `Node ${process.version} runs the tests (the functions' runtime: ${lambdaRuntime()}).`,
    );
  });
});
