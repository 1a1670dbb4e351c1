/** The IAM decided at deploy time (sls/resolvers/iam.ts): the secrets' forms, and who reads which. */
import { afterEach, describe, expect, it } from 'vitest';
import { routes } from '../../../../lib/http/routes/index.ts';
import * as iam from '../../../../sls/resolvers/iam.ts';
import {
  capitalized,
  DEV_READS,
  FUNCTION_ACTIONS,
  LOGS,
  SECRET,
  TABLE,
  XRAY,
} from '../../../helpers/function-expectations.ts';

const variablesOf =
  (layout = 'single', publicReference: boolean | string = true) =>
  async (name: string) =>
    (
      ({
        'self:service': 'platform-gateway',
        'sls:stage': 'dev',
        'param:secretLayout': layout,
        'param:publicReference': publicReference,
      }) as Record<string, unknown>
    )[name];
const resolveVariable = variablesOf();
const SAVED = { ...process.env };

afterEach(() => {
  process.env = { ...SAVED };
});

describe('the secret a deployed stage may read', () => {
  it.each([
    [
      'the stage default name',
      undefined,
      {
        'Fn::Sub':
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
          'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:platform-gateway/dev/platform-??????',
      },
    ],
    [
      'a name',
      'team/gateway',
      {
        'Fn::Sub':
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
          'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:team/gateway-??????',
      },
    ],
    [
      'a full ARN',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/gateway-AbC123',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/gateway-AbC123',
    ],
    [
      'a partial ARN',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/gateway',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/gateway-??????',
    ],
  ])('%s', async (_case, secretId, expected) => {
    if (secretId) process.env.SECRET_ID = secretId;
    else delete process.env.SECRET_ID;
    const { secretIds } = (await iam.readsOf(resolveVariable)).listJobs!;
    expect(secretIds.map(iam.secretResource)).toEqual([expected]);
  });
});

describe('who reads which secret', () => {
  it('with one secret, every function that reads any reads it; health and fallback none', async () => {
    const reads = await iam.readsOf(variablesOf('single'));
    expect(reads.health!.secretIds).toEqual([]);
    expect(reads.fallback!.secretIds).toEqual([]);
    expect(reads.catalogueMaps!.secretIds).toEqual(['platform-gateway/dev/platform']);
  });

  it('split, each function reads the secrets of what it uses, and only the receiver the webhooks', async () => {
    delete process.env.SECRET_ID;
    const reads = await iam.readsOf(variablesOf('split'));
    const of = (fn: string) => reads[fn]!.secretIds.map((id) => id.split('/').at(-1)).sort();
    expect(of('listJobs')).toEqual(['callers', 'signing']);
    expect(of('watchScanJobs')).toEqual(['signing']);
    expect(of('catalogueMaps')).toEqual(['callers', 'catalogue']);
    expect(of('invokeAction')).toEqual(['callers', 'execution']);
    expect(of('consumeInvocations')).toEqual(['execution']);
    expect(of('receiveWebhook')).toEqual(['webhooks']);
    // The reference is public by default: its functions read no secret.
    expect(of('openapi')).toEqual([]);
    expect(of('docs')).toEqual([]);
    const webhookReaders = Object.keys(reads).filter((fn) => of(fn).includes('webhooks'));
    expect(webhookReaders).toEqual(['receiveWebhook']);
    const signingReaders = Object.keys(reads).filter((fn) => of(fn).includes('signing'));
    expect(signingReaders.some((fn) => fn.startsWith('catalogue'))).toBe(false);
  });

  it('splits by default, and refuses a layout it does not know', async () => {
    delete process.env.SECRET_ID;
    const unset = async (name: string) =>
      ({ 'self:service': 'platform-gateway', 'sls:stage': 'dev' })[name];
    const reads = await iam.readsOf(unset);
    expect(reads.receiveWebhook!.secretIds).toEqual(['platform-gateway/dev/webhooks']);
    await expect(iam.readsOf(variablesOf('spilt'))).rejects.toThrow(
      'The secretLayout parameter must be split or single, not "spilt".',
    );
  });

  it("reads the callers for the reference's functions where the stage turns its public reference off", async () => {
    delete process.env.SECRET_ID;
    for (const off of [false, 'false']) {
      const reads = await iam.readsOf(variablesOf('split', off));
      for (const fn of ['openapi', 'docs']) {
        expect(reads[fn]!.capabilities, fn).toEqual(['callers']);
      }
    }
  });

  it('lets the framework resolve the roles again when the stage’s parameters cannot be read yet', async () => {
    const early = Object.assign(new Error('Cannot resolve variable'), {
      code: 'MISSING_VARIABLE_DEPENDENCY',
    });
    const tooEarly = async (name: string) => {
      if (name === 'param:publicReference') throw early;
      return variablesOf('split')(name);
    };
    await expect(iam.readsOf(tooEarly)).rejects.toBe(early);
  });

  it('reads no callers where API Gateway checks JWT callers', async () => {
    process.env.JWT_ISSUER_URL = 'https://issuer.example.com';
    const reads = await iam.readsOf(variablesOf('split'));
    expect(reads.openapi!.secretIds).toEqual([]);
    expect(reads.listJobs!.capabilities).toEqual(['signing']);
  });

  it('gives each function a role writing only its own log group', async () => {
    const { Resources } = await iam.roles({ resolveVariable });
    const logs = JSON.stringify(Resources.ListJobsRole!.Properties.Policies[0]);
    expect(logs).toContain('log-group:/aws/lambda/platform-gateway-dev-listJobs:*');
    expect(logs).not.toContain('-dev-*');
    expect(Object.keys(Resources)).toHaveLength(TABLE.length);
  });

  it('lets the functions that admit keep usage in the usage table, on its usage items only, and no other', async () => {
    const { Resources } = await iam.roles({ resolveVariable });
    type UsageStatement = {
      readonly Action: string | readonly string[];
      readonly Condition?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    };
    const usageStatements = (role: string) =>
      Resources[role]!.Properties.Policies.filter((policy) =>
        JSON.stringify(policy.PolicyDocument).includes('"UsageTable"'),
      ).map((policy): UsageStatement => policy.PolicyDocument.Statement[0]!);
    const usageActions = (role: string) => usageStatements(role).flatMap((s) => s.Action);
    const keysOf = (statement: UsageStatement | undefined) =>
      statement?.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    const admitting = [
      'ListJobs',
      'SearchJobs',
      'CancelReservedJobs',
      'CancelJob',
      'StopJob',
      'GetJobReport',
      'InvokeAction',
      'FireTrigger',
      'CatalogueLanguage',
      'CatalogueMaps',
      'CatalogueCaptcha',
      'CatalogueUtility',
    ];
    for (const fn of admitting) {
      const [usage, ...others] = usageStatements(`${fn}Role`);
      expect(usage?.Action, fn).toEqual(['dynamodb:UpdateItem', 'dynamodb:GetItem']);
      expect(keysOf(usage), fn).toEqual(['caller#*', 'account', 'account#*']);
      // Only the function that holds leases may delete, and its leases only.
      expect(
        others.map((statement) => [statement.Action, keysOf(statement)]),
        fn,
      ).toEqual(
        fn === 'CancelReservedJobs'
          ? [
              [
                ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem'],
                ['lease#cancel-reserved#*'],
              ],
            ]
          : [],
      );
    }
    // The consumer counts deliveries in the account's usage, on its shards: nothing to delete.
    const [consumer] = usageStatements('ConsumeInvocationsRole');
    expect(consumer?.Action).toEqual(['dynamodb:UpdateItem', 'dynamodb:GetItem']);
    expect(keysOf(consumer)).toEqual(['account#*']);
    const [usage] = usageStatements('UsageRole');
    expect([usage?.Action, keysOf(usage)]).toEqual([
      ['dynamodb:GetItem'],
      ['caller#*', 'account', 'account#*'],
    ]);
    for (const fn of ['Health', 'Fallback', 'Openapi', 'Docs', 'ReceiveWebhook', 'WatchScanJobs']) {
      expect(usageActions(`${fn}Role`), fn).toEqual([]);
    }
  });
});

describe('the functions that hand off answers too large to return', () => {
  it('are the functions of the routes that hand off (the registry), no more, no fewer', () => {
    const inRegistry = new Set(routes.filter((route) => route.handsOff).map((r) => r.function));
    expect(new Set(iam.HAND_OFF_FUNCTIONS)).toEqual(inRegistry);
  });

  it("each write, abort and read under its own prefix of the bucket, and the bucket's policy names their roles", async () => {
    const resources = (await iam.roles({ resolveVariable })).Resources;
    const policy = resources.CatalogueMapsRole?.Properties.Policies.find(
      (p) => p.PolicyName === 'hand-off-answers',
    );
    expect(policy).toEqual({
      PolicyName: 'hand-off-answers',
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject'],
            // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
            Resource: { 'Fn::Sub': '${HandOffBucket.Arn}/catalogueMaps/*' },
          },
        ],
      },
    });
    const names = (role: string) => resources[role]?.Properties.Policies.map((p) => p.PolicyName);
    expect(names('ListJobsRole')).not.toContain('hand-off-answers');
    expect(await iam.handOffRoles()).toContainEqual({ 'Fn::GetAtt': ['GetJobReportRole', 'Arn'] });
  });

  it("lets only the receiver's role put a delivery body and only the consumer's get one", async () => {
    expect(await iam.deliveryBodyWriters()).toEqual([
      { 'Fn::GetAtt': ['ReceiveWebhookRole', 'Arn'] },
    ]);
    expect(await iam.deliveryBodyReaders()).toEqual([
      { 'Fn::GetAtt': ['ConsumeInvocationsRole', 'Arn'] },
    ]);
  });
});

describe("each function's role, as its entry in the function table says", () => {
  it('may do exactly what its function needs, and read exactly its secrets (the template test holds the stack to the same)', async () => {
    delete process.env.SECRET_ID;
    delete process.env.JWT_ISSUER_URL;
    const { Resources } = await iam.roles({ resolveVariable: variablesOf('split') });
    expect(Object.keys(Resources).sort()).toEqual(
      TABLE.map((fn) => `${capitalized(fn.name)}Role`).sort(),
    );
    for (const fn of TABLE) {
      const statements = Resources[`${capitalized(fn.name)}Role`]!.Properties.Policies.flatMap(
        (policy) => policy.PolicyDocument.Statement,
      );
      const actions = statements.flatMap((s) => [s.Action].flat());
      expect([...new Set(actions)].sort(), fn.name).toEqual(
        [...LOGS, ...XRAY, ...FUNCTION_ACTIONS[fn.name]!].sort(),
      );
      const secrets = statements
        .filter((s) => s.Action === SECRET)
        .flatMap((s) => [s.Resource].flat())
        .map((resource) => JSON.stringify(resource).match(/secret:[^"]*?\/([a-z]+)-\?{6}/)?.[1])
        .sort();
      expect(secrets, fn.name).toEqual(DEV_READS[fn.name]);
    }
  });
});
