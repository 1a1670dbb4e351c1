/** The deploy-time settings (scripts/sls/deploy-settings.cjs): the secret's forms, the checks. */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';

type Resolver = (input: {
  resolveVariable: (name: string) => Promise<unknown>;
}) => Promise<unknown>;
const DeploySettings = createRequire(import.meta.url)(
  '../../../../scripts/sls/deploy-settings.cjs',
) as {
  new (serverless: unknown): { check(): void };
  secretResources: Resolver;
  alarmActions: Resolver;
};
const resolveVariable = async (name: string) =>
  ({ 'self:custom.secretName': 'platform-gateway/dev/platform', 'param:alarmTopicArn': '' })[name];
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
    expect(await DeploySettings.secretResources({ resolveVariable })).toEqual([expected]);
  });
});

describe('the settings check before packaging', () => {
  const deployed = (custom: Record<string, unknown> = { isLocal: false }) =>
    new DeploySettings({
      service: { custom },
      classes: { Error },
    });

  it('names every missing or malformed setting, and no value', () => {
    process.env = {
      PATH: SAVED.PATH,
      OPENAPI_BASE_URL: 'not a url',
      SECRET_ID: 'bad secret id with spaces',
      EVENT_BUS_NAME: 'arn:nope',
      SECRET_KMS_KEY_ARN: 'key-1',
    };
    const attempt = () => deployed().check();
    expect(attempt).toThrow(/SCAN_BASE_URL is required/);
    expect(attempt).toThrow(/OPENAPI_BASE_URL must be an absolute http\(s\) URL/);
    expect(attempt).toThrow(/SECRET_ID must be/);
    expect(attempt).toThrow(/EVENT_BUS_NAME must be/);
    expect(attempt).toThrow(/SECRET_KMS_KEY_ARN must be/);
    expect(attempt).not.toThrow(/bad secret id|key-1/);
  });

  it('passes complete settings, and never checks a local run', () => {
    process.env = {
      PATH: SAVED.PATH,
      SCAN_BASE_URL: 'https://wsc.apigw.example.com',
      OPENAPI_BASE_URL: 'https://openapi.apigw.example.com/base',
    };
    expect(() => deployed().check()).not.toThrow();
    process.env = { PATH: SAVED.PATH };
    expect(() => deployed({ isLocal: true }).check()).not.toThrow();
  });

  it('sends alarms nowhere without a topic', async () => {
    expect(await DeploySettings.alarmActions({ resolveVariable })).toEqual([]);
  });
});
