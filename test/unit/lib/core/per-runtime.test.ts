import { describe, expect, it } from 'vitest';
import { perRuntime } from '../../../../lib/core/per-runtime.ts';

describe('perRuntime', () => {
  it('builds nothing until a client is asked for, then builds it once for its runtime', () => {
    const built: object[] = [];
    const clientOf = perRuntime((runtime: { name: string }) => {
      built.push(runtime);
      return { for: runtime.name };
    });
    const runtime = { name: 'container' };
    expect(built).toEqual([]);
    const client = clientOf(runtime);
    expect(client).toEqual({ for: 'container' });
    expect(clientOf(runtime)).toBe(client);
    expect(built).toEqual([runtime]);
  });

  it('gives another runtime (a test, a fresh container) a client of its own', () => {
    const clientOf = perRuntime((runtime: { name: string }) => ({ for: runtime.name }));
    const first = clientOf({ name: 'one' });
    const second = clientOf({ name: 'two' });
    expect(first).not.toBe(second);
    expect(second).toEqual({ for: 'two' });
  });
});
