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
    const topic = { isLocal: false, alarmActions: ['arn:aws:sns:us-east-1:123456789012:on-call'] };
    expect(() => deployed(topic, 'prod').check()).not.toThrow();
    expect(() => deployed({ isLocal: false, alarmActions: ['on-call'] }, 'dev').check()).toThrow(
      /alarmTopicArn parameter must be the ARN of an SNS topic/,
    );
  });
});
