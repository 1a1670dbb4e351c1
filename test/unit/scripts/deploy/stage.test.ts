/**
 * scripts/deploy/stage.ts without the framework: resolvingOnce's memo, with a resolver that
 * counts its calls (the real `serverless print` is held by test/unit/scripts/preflight.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  type DeployFlags,
  type ResolvedStage,
  resolvingOnce,
} from '../../../../scripts/deploy/stage.ts';

const flags = (stage: string, ...params: [string, string][]): DeployFlags => ({ stage, params });

function counting(fail = 0) {
  const calls: [DeployFlags, NodeJS.ProcessEnv | undefined][] = [];
  let failures = fail;
  const resolve = async (given: DeployFlags, env?: NodeJS.ProcessEnv) => {
    calls.push([given, env]);
    if (failures-- > 0) throw new Error('does not resolve');
    return { stage: given.stage, region: env?.AWS_REGION } as unknown as ResolvedStage;
  };
  return { calls, resolve };
}

describe('resolvingOnce', () => {
  it('resolves the same flags and environment once', async () => {
    const { calls, resolve } = counting();
    const once = resolvingOnce(resolve);
    const env = { AWS_REGION: 'eu-west-1' };
    const first = await once(flags('prod', ['a', '1']), env);
    expect(await once(flags('prod', ['a', '1']), { ...env })).toBe(first);
    expect(calls).toHaveLength(1);
  });

  it('resolves again for other flags, another order of params, or another environment', async () => {
    const { calls, resolve } = counting();
    const once = resolvingOnce(resolve);
    const env = { AWS_REGION: 'eu-west-1' };
    await once(flags('prod', ['a', '1'], ['b', '2']), env);
    await once(flags('prod', ['b', '2'], ['a', '1']), env);
    await once(flags('dev', ['a', '1'], ['b', '2']), env);
    await once({ ...flags('prod', ['a', '1'], ['b', '2']), region: 'us-east-1' }, env);
    expect(
      (await once(flags('prod', ['a', '1'], ['b', '2']), { AWS_REGION: 'us-east-1' })).region,
    ).toBe('us-east-1');
    await once(flags('prod', ['a', '1'], ['b', '2']), { ...env, STAGE: 'prod' });
    expect(calls).toHaveLength(6);
  });

  it('tries a resolution that failed again', async () => {
    const { calls, resolve } = counting(1);
    const once = resolvingOnce(resolve);
    await expect(once(flags('prod'), {})).rejects.toThrow('does not resolve');
    await expect(once(flags('prod'), {})).resolves.toMatchObject({ stage: 'prod' });
    expect(calls).toHaveLength(2);
  });

  it("keeps each memo the returned function's own", async () => {
    const { calls, resolve } = counting();
    await resolvingOnce(resolve)(flags('prod'), {});
    await resolvingOnce(resolve)(flags('prod'), {});
    expect(calls).toHaveLength(2);
  });
});
