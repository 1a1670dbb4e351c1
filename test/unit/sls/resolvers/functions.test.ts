/**
 * serverless.yml's functions, made from the function table (sls/resolvers/functions.ts): each
 * function's block as the framework reads it, by the kind of stage.
 */
import { describe, expect, it } from 'vitest';
import { httpApiEvents } from '../../../../lib/http/routes/index.ts';
import { FUNCTIONS } from '../../../../sls/functions.ts';
import * as resolver from '../../../../sls/resolvers/functions.ts';

type Block = resolver.FunctionBlock;

/** A stage's variables: local or deployed, its reference public or not. */
const stage =
  ({ local = false, publicReference = true as unknown } = {}) =>
  async (name: string) =>
    ({ 'self:custom.isLocal': local, 'param:publicReference': publicReference })[name];
const blocksOf = (options?: Parameters<typeof stage>[0]) =>
  resolver.functions({ resolveVariable: stage(options) });

describe("serverless.yml's functions", () => {
  it('has a block for every function of the table, in its order, each with a role of its own', async () => {
    const blocks = await blocksOf();
    expect(Object.keys(blocks)).toEqual(Object.keys(FUNCTIONS));
    expect(blocks.listJobs).toMatchObject({
      handler: 'functions/jobs/list.handler',
      role: 'ListJobsRole',
      timeout: 10,
      memorySize: 256,
      events: [{ httpApi: { method: 'GET', path: '/jobs' } }],
    });
    expect(blocks.cancelReservedJobs).toMatchObject({
      timeout: 25,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
      reservedConcurrency: '${param:cancelReservedConcurrency}',
    });
    expect(blocks.listJobs?.reservedConcurrency).toBeUndefined();
  });

  it("gives each HTTP function the httpApi events of its routes, and the catch-all API Gateway's $default", async () => {
    const blocks = await blocksOf();
    const events = httpApiEvents();
    for (const [name, block] of Object.entries(blocks)) {
      if (FUNCTIONS[name]!.routes.length === 0 || name === 'fallback') continue;
      expect(block.events, name).toEqual(events[name]);
    }
    expect(blocks.fallback?.events).toEqual([{ httpApi: '*' }]);
  });

  it('runs the consumer from its queue, five at a time, at most its parameter at once, and the watcher on its schedule', async () => {
    const blocks = await blocksOf();
    expect(blocks.consumeInvocations?.events).toEqual([
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['InvocationQueue', 'Arn'] },
          batchSize: 5,
          functionResponseType: 'ReportBatchItemFailures',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
          maximumConcurrency: '${param:consumeInvocationsConcurrency}',
        },
      },
    ]);
    expect(blocks.consumeInvocations?.timeout).toBe(90);
    expect(blocks.watchScanJobs?.events).toEqual([
      {
        schedule: { rate: ['rate(5 minutes)'], enabled: true, description: 'Scan job watcher run' },
      },
    ]);
    expect(resolver.queueConsumer()).toBe('consumeInvocations');
  });

  it('picks the receiver by the kind of stage: queued when deployed, run in process locally', async () => {
    expect((await blocksOf()).receiveWebhook?.handler).toBe('functions/webhooks/receive.handler');
    expect((await blocksOf({ local: true })).receiveWebhook?.handler).toBe(
      'functions/webhooks/receive-local.handler',
    );
    expect((await blocksOf()).receiveWebhook?.environment).toMatchObject({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
      INVOCATION_QUEUE_URL: '${self:custom.invocationQueueUrl.${self:custom.isLocal}}',
    });
  });

  it("picks the reference's handlers by the stage's publicReference", async () => {
    const open = await blocksOf();
    expect([open.openapi?.handler, open.docs?.handler]).toEqual([
      'functions/openapi.handler',
      'functions/docs.handler',
    ]);
    for (const off of [false, 'false', ' FALSE ']) {
      const closed = await blocksOf({ publicReference: off });
      expect([closed.openapi?.handler, closed.docs?.handler]).toEqual([
        'functions/openapi-for-callers.handler',
        'functions/docs-for-callers.handler',
      ]);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
    expect(open.docs?.environment).toEqual({ PUBLIC_REFERENCE: '${param:publicReference}' });
  });

  it('puts the reference behind the JWT authorizer where the stage has an issuer and no public reference', async () => {
    const saved = process.env.JWT_ISSUER_URL;
    process.env.JWT_ISSUER_URL = 'https://issuer.example.com/pool-1';
    try {
      const authorizerOf = (blocks: Record<string, Block>) =>
        (blocks.openapi!.events[0] as { httpApi: { authorizer?: unknown } }).httpApi.authorizer;
      expect(authorizerOf(await blocksOf({ publicReference: 'false' }))).toEqual({
        name: 'callerJwt',
      });
      expect(authorizerOf(await blocksOf())).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.JWT_ISSUER_URL;
      else process.env.JWT_ISSUER_URL = saved;
    }
  });

  it('starts no secrets extension in a function that reads no secret', async () => {
    const blocks = await blocksOf();
    const without = Object.entries(blocks)
      .filter(([, block]) => block.layers !== undefined)
      .map(([name, block]) => [name, block.layers]);
    expect(without).toEqual([
      ['health', []],
      ['fallback', []],
    ]);
  });

  it('lets the framework resolve them again when a stage parameter cannot be read yet', async () => {
    const early = Object.assign(new Error('Cannot resolve variable'), {
      code: 'MISSING_VARIABLE_DEPENDENCY',
    });
    await expect(
      resolver.functions({
        resolveVariable: async (name) => {
          if (name.startsWith('param:')) throw early;
          return false;
        },
      }),
    ).rejects.toBe(early);
  });
});
