/** The deploy-time settings check (scripts/sls/settings.cjs). */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';

const SettingsCheck = createRequire(import.meta.url)('../../../../scripts/sls/settings.cjs') as {
  new (serverless: unknown): { check(): void };
};
const SAVED = { ...process.env };

afterEach(() => {
  process.env = { ...SAVED };
});

describe('the settings check before packaging', () => {
  const deployed = (custom: Record<string, unknown> = { isLocal: false }, stage = 'dev') =>
    new SettingsCheck({
      service: { custom, provider: { stage } },
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

const URLS = {
  SCAN_BASE_URL: 'https://wsc.apigw.example.com',
  OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
};
const REDRIVE = 'arn:aws:iam::123456789012:role/on-call';
