/** The deploy-time settings check (sls/plugins/settings.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import SettingsCheck from '../../../../sls/plugins/settings.ts';
import type { Custom, Provider } from '../../../../sls/serverless.ts';
import { serverlessOf } from '../../../helpers/serverless.ts';

const SAVED = { ...process.env };

afterEach(() => {
  process.env = { ...SAVED };
});

describe('the settings check before packaging', () => {
  const deployed = (custom: Custom = { isLocal: false }, stage = 'dev') =>
    new SettingsCheck(serverlessOf({ custom, provider: { stage } }));

  it('names every missing or malformed setting, and no value', () => {
    process.env = {
      PATH: SAVED.PATH,
      OPENAPI_BASE_URL: 'not a url',
      SECRET_ID: 'bad secret id with spaces',
      EVENT_BUS_NAME: 'arn:nope',
      SECRET_KMS_KEY_ARN: 'key-1',
    };
    const attempt = () => deployed().check();
    expect(attempt).toThrow(/SCAN_BASE_URL is required to deploy a stage/);
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

  it('refuses the prod stage without an alarm topic, naming the parameter; another stage may leave it empty', () => {
    process.env = {
      PATH: SAVED.PATH,
      SCAN_BASE_URL: 'https://wsc.apigw.example.com',
      OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
    };
    const noTopic = { isLocal: false, alarmActions: [] };
    expect(() => deployed(noTopic, 'prod').check()).toThrow(
      /alarmTopicArn parameter is required for the prod stage/,
    );
    expect(() => deployed(noTopic, 'dev').check()).not.toThrow();
    const topic = {
      isLocal: false,
      alarmActions: ['arn:aws:sns:us-east-1:123456789012:on-call'],
      redrivePrincipalArn: REDRIVE,
    };
    expect(() => deployed(topic, 'prod').check()).not.toThrow();
    expect(() => deployed({ isLocal: false, alarmActions: ['on-call'] }, 'dev').check()).toThrow(
      /alarmTopicArn parameter must be the ARN of an SNS topic/,
    );
  });

  it('asks the same of any stage its data is kept for, whatever it is called; a stage declared disposable may leave both empty', () => {
    process.env = { PATH: SAVED.PATH, ...URLS };
    const none = { isLocal: false, alarmActions: [] };
    for (const stage of ['production', 'staging', 'qa']) {
      const attempt = () => deployed(none, stage).check();
      expect(attempt).toThrow(
        new RegExp(`alarmTopicArn parameter is required for the ${stage} stage`),
      );
      expect(attempt).toThrow(/redrivePrincipalArn parameter is required/);
      expect(attempt).toThrow(/declare the stage disposable \(--param="disposable=true"\)/);
    }
    const thrownAway = { ...none, dataRetention: { disposable: 'true' } };
    expect(() => deployed(thrownAway, 'pr-123').check()).not.toThrow();
    // dev is disposable by default, and may be declared kept.
    const keptDev = { ...none, dataRetention: { disposable: false } };
    expect(() => deployed(keptDev, 'dev').check()).toThrow(/alarmTopicArn parameter is required/);
  });

  it('refuses the prod stage without a redrive principal: the queue policy must name who may redrive', () => {
    process.env = { PATH: SAVED.PATH, ...URLS };
    const topic = ['arn:aws:sns:us-east-1:123456789012:on-call'];
    expect(() => deployed({ isLocal: false, alarmActions: topic }, 'prod').check()).toThrow(
      /redrivePrincipalArn parameter is required for the prod stage/,
    );
    expect(() => deployed({ isLocal: false, alarmActions: [] }, 'dev').check()).not.toThrow();
    expect(() =>
      deployed({ isLocal: false, alarmActions: [], redrivePrincipalArn: 'on-call' }, 'dev').check(),
    ).toThrow(/redrivePrincipalArn parameter must be the ARN of an IAM role or user/);
  });

  it('refuses a plain http:// base or service URL for a deployed stage, loopback hosts excepted', () => {
    process.env = {
      PATH: SAVED.PATH,
      SCAN_BASE_URL: 'http://wsc.apigw.example.com',
      OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
      OPENAPI_SERVICE_URLS:
        '{"nmt":"http://papago.example.com","map-geocode":"https://maps.example.com"}',
    };
    const attempt = () => deployed().check();
    expect(attempt).toThrow(/SCAN_BASE_URL must be an https URL: https is required when deployed/);
    expect(attempt).toThrow(/OPENAPI_SERVICE_URLS\.nmt must be an https URL/);
    expect(attempt).not.toThrow(/map-geocode|OPENAPI_BASE_URL/);
    for (const local of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) {
      process.env = { PATH: SAVED.PATH, SCAN_BASE_URL: local, OPENAPI_BASE_URL: local };
      expect(() => deployed().check(), local).not.toThrow();
    }
  });

  it('refuses base URLs of a kept stage that are not https on a public host, unless the deploy goes to a stand-in AWS on this machine', () => {
    const kept = { isLocal: false, alarmActions: [TOPIC], redrivePrincipalArn: REDRIVE };
    const local = 'http://127.0.0.1:4010';
    process.env = { PATH: SAVED.PATH, SCAN_BASE_URL: local, OPENAPI_BASE_URL: local };
    const attempt = () => deployed(kept, 'prod').check();
    expect(attempt).toThrow(
      /SCAN_BASE_URL must be an https URL on a public host for the prod stage, not http:\/\/127\.0\.0\.1:4010/,
    );
    expect(attempt).toThrow(/OPENAPI_BASE_URL must be an https URL on a public host/);
    expect(attempt).toThrow(/AWS_ENDPOINT_URL on loopback/);
    // Private, link-local and local names are no public host either, https or not.
    for (const url of [
      'https://10.0.0.7',
      'https://192.168.1.20:8443',
      'https://169.254.169.254',
      'https://localhost',
      'https://[::1]',
      'https://platform',
    ]) {
      process.env = { PATH: SAVED.PATH, ...URLS, OPENAPI_BASE_URL: url };
      expect(attempt, url).toThrow(/OPENAPI_BASE_URL must be an https URL on a public host/);
    }
    process.env = {
      PATH: SAVED.PATH,
      ...URLS,
      OPENAPI_SERVICE_URLS:
        '{"nmt":"http://localhost:4010","map-geocode":"https://maps.example.com"}',
    };
    expect(attempt).toThrow(/OPENAPI_SERVICE_URLS\.nmt must be an https URL on a public host/);
    expect(attempt).not.toThrow(/map-geocode/);
    // The rehearsal: every AWS call to a stand-in on this machine, the platform too.
    process.env = {
      PATH: SAVED.PATH,
      SCAN_BASE_URL: local,
      OPENAPI_BASE_URL: local,
      AWS_ENDPOINT_URL: 'http://127.0.0.1:5000',
    };
    expect(attempt).not.toThrow();
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = 'https://cloudformation.us-east-1.amazonaws.com';
    expect(attempt).toThrow(/SCAN_BASE_URL must be an https URL on a public host/);
    process.env = {
      PATH: SAVED.PATH,
      SCAN_BASE_URL: local,
      OPENAPI_BASE_URL: local,
      AWS_ENDPOINT_URL: 'https://aws-proxy.example.com',
    };
    expect(attempt).toThrow(/SCAN_BASE_URL must be an https URL on a public host/);
    // A disposable stage keeps the rule of every deployed stage: https, or a loopback host.
    process.env = { PATH: SAVED.PATH, SCAN_BASE_URL: local, OPENAPI_BASE_URL: local };
    expect(() => deployed(kept, 'dev').check()).not.toThrow();
    expect(() =>
      deployed({ ...kept, dataRetention: { disposable: 'true' } }, 'pr-7').check(),
    ).not.toThrow();
  });

  it("checks each capability's secret id and the JWT issuer and audience together", () => {
    process.env = {
      PATH: SAVED.PATH,
      ...URLS,
      SIGNING_SECRET_ID: 'gw/prod/signing',
      CALLERS_SECRET_ID: 'bad id with spaces',
      JWT_ISSUER_URL: 'http://issuer.example.com',
    };
    const attempt = () => deployed().check();
    expect(attempt).toThrow(/CALLERS_SECRET_ID must be a secret name/);
    expect(attempt).not.toThrow(/SIGNING_SECRET_ID/);
    expect(attempt).toThrow(/JWT_ISSUER_URL and JWT_AUDIENCE go together/);
    expect(attempt).toThrow(/JWT_ISSUER_URL must be the https URL of the token issuer/);
    process.env = {
      PATH: SAVED.PATH,
      ...URLS,
      JWT_ISSUER_URL: 'https://issuer.example.com',
      JWT_AUDIENCE: 'platform-gateway,reporting',
    };
    expect(() => deployed().check()).not.toThrow();
  });

  it('takes JWT_ALLOW_STAR_SCOPE as true or false only', () => {
    for (const value of ['true', 'false', '']) {
      process.env = { PATH: SAVED.PATH, ...URLS, JWT_ALLOW_STAR_SCOPE: value };
      expect(() => deployed().check(), value).not.toThrow();
    }
    process.env = { PATH: SAVED.PATH, ...URLS, JWT_ALLOW_STAR_SCOPE: 'yes' };
    expect(() => deployed().check()).toThrow(/JWT_ALLOW_STAR_SCOPE must be true or false/);
  });
});

describe('the secrets reader a stage chooses', () => {
  const withReader = (reader: string, layers: unknown[] = []) =>
    new SettingsCheck(
      serverlessOf({
        custom: { isLocal: false, alarmActions: [] },
        provider: { stage: 'dev', layers, environment: { SECRETS_READER: reader } },
      }),
    );

  it('takes signed, sdk, or extension with its layer, and nothing else', () => {
    process.env = { PATH: SAVED.PATH, ...URLS };
    for (const reader of ['', 'signed', 'sdk'])
      expect(() => withReader(reader).check()).not.toThrow();
    expect(() => withReader('extension').check()).toThrow(/set secretsExtensionLayerArn too/);
    expect(() =>
      withReader('extension', ['arn:aws:lambda:us-east-1:1:layer:x:1']).check(),
    ).not.toThrow();
    expect(() => withReader('vault').check()).toThrow(
      /secretsReader parameter must be signed, extension or sdk/,
    );
  });
});

describe('serverless package with no settings', () => {
  const withCommand = (
    command: string,
    warnings: string[] = [],
    provider: Partial<Provider> = { stage: 'dev' },
  ) =>
    new SettingsCheck(
      serverlessOf({
        custom: { isLocal: false, alarmActions: [] },
        provider,
        commands: [command],
      }),
      {},
      {
        log: Object.assign(() => undefined, {
          warning: (message: string) => void warnings.push(message),
        }),
      },
    );

  it('packages with no base URL and says loudly that the package cannot be deployed', () => {
    process.env = { PATH: SAVED.PATH };
    const warnings: string[] = [];
    expect(() => withCommand('package', warnings).check()).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /SCAN_BASE_URL and OPENAPI_BASE_URL are not set: the package is built for inspection only.*serverless deploy` refuses it/,
    );
    process.env = { PATH: SAVED.PATH, ...URLS };
    const none: string[] = [];
    withCommand('package', none).check();
    expect(none).toEqual([]);
  });

  it('refuses to deploy with no base URL, and refuses a package built without them', () => {
    process.env = { PATH: SAVED.PATH };
    expect(() => withCommand('deploy').check()).toThrow(
      /SCAN_BASE_URL is required to deploy a stage/,
    );
    const template = (url: string) => ({
      Resources: {
        ListJobsLambdaFunction: {
          Type: 'AWS::Lambda::Function',
          Properties: { Environment: { Variables: { SCAN_BASE_URL: url, OPENAPI_BASE_URL: url } } },
        },
      },
    });
    const built = (url: string) =>
      withCommand('deploy', [], { stage: 'dev', compiledCloudFormationTemplate: template(url) });
    expect(() => built('').checkDeployable()).toThrow(
      /built without SCAN_BASE_URL and OPENAPI_BASE_URL/,
    );
    expect(() => built('https://wsc.apigw.example.com').checkDeployable()).not.toThrow();
  });

  it('refuses an alarm topic, a secret, a key or a layer of another region than the stack', () => {
    process.env = {
      PATH: SAVED.PATH,
      ...URLS,
      SIGNING_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gw/signing',
      SECRET_KMS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd',
    };
    const inRegion = (region: string, topic: string, layers: unknown[] = []) =>
      new SettingsCheck(
        serverlessOf({
          custom: { isLocal: false, alarmActions: [topic] },
          provider: { stage: 'dev', region, layers },
        }),
      );
    const topic = 'arn:aws:sns:eu-west-1:123456789012:on-call';
    const layer =
      'arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';
    const attempt = () => inRegion('us-east-1', topic, [layer]).check();
    expect(attempt).toThrow(
      /alarmTopicArn parameter names a resource of eu-west-1, but the stack deploys to us-east-1/,
    );
    expect(attempt).toThrow(/SIGNING_SECRET_ID names a resource of eu-west-1/);
    expect(attempt).not.toThrow(/SECRET_KMS_KEY_ARN|secretsExtensionLayerArn/);
    process.env.SECRET_KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd';
    expect(() => inRegion('eu-west-1', topic).check()).not.toThrow();
    expect(() => inRegion('eu-west-1', topic, [layer]).check()).toThrow(
      /secretsExtensionLayerArn parameter names a resource of us-east-1/,
    );
  });
});

const URLS = {
  SCAN_BASE_URL: 'https://wsc.apigw.example.com',
  OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
};
const REDRIVE = 'arn:aws:iam::123456789012:role/on-call';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:on-call';
