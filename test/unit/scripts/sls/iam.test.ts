/** The IAM decided at deploy time (scripts/sls/iam.cjs): the secret's forms. */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';

type Resolver = (input: {
  resolveVariable: (name: string) => Promise<unknown>;
}) => Promise<unknown>;
const iam = createRequire(import.meta.url)('../../../../scripts/sls/iam.cjs') as {
  secretResources: Resolver;
};
const resolveVariable = async (name: string) =>
  ({ 'self:custom.secretName': 'platform-gateway/dev/platform' })[name];
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
    expect(await iam.secretResources({ resolveVariable })).toEqual([expected]);
  });
});
