import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { requiredSetting } from '../../../../lib/core/deployed-settings.ts';
import { ConfigError } from '../../../../lib/core/errors.ts';

describe('loadConfig', () => {
  it('has defaults that point at the local emulator and the demo secret', () => {
    const config = loadConfig({});
    expect(config.scanBaseUrl?.href).toBe('http://127.0.0.1:4010/');
    expect(config.openapiBaseUrl?.href).toBe('http://127.0.0.1:4010/');
    expect(config.gatewayVendor).toBe('platform');
    expect(config.secretsSource).toBe('file');
    expect(config.secretsFile.endsWith('emulator/demo-secret.json')).toBe(true);
    expect(config.secretsTtlMs).toBe(300_000);
    expect(config.upstreamTimeoutMs).toBe(8000);
  });

  it('derives the emulator URL from EMULATOR_PORT', () => {
    expect(loadConfig({ EMULATOR_PORT: '5999' }).scanBaseUrl?.href).toBe('http://127.0.0.1:5999/');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      SCAN_BASE_URL: 'https://wsc.example.com/prefix',
      OPENAPI_BASE_URL: 'https://open.example.com',
      OPENAPI_SERVICE_URLS: '{"nmt":"https://papago.example.com"}',
      GATEWAY_VENDOR: 'NCP',
      SECRETS_SOURCE: 'aws',
      SECRET_ID: 'arn:aws:secretsmanager:us-east-1:1:secret:x',
      SECRETS_TTL_SECONDS: '0',
      UPSTREAM_TIMEOUT_MS: '1500',
    });
    expect(config.scanBaseUrl?.href).toBe('https://wsc.example.com/prefix');
    expect(config.openapiServiceUrls.get('nmt')?.href).toBe('https://papago.example.com/');
    expect(config.gatewayVendor).toBe('ncp');
    expect(config.secretsSource).toBe('aws');
    expect(config.secretsTtlMs).toBe(0);
    expect(config.upstreamTimeoutMs).toBe(1500);
  });

  it('reads the usage table and what to do when it fails, open by default', () => {
    const defaults = loadConfig({});
    expect(defaults.usageTable).toBeUndefined();
    expect(defaults.usageStoreFailure).toBe('open');
    const set = loadConfig({
      USAGE_TABLE: 'platform-gateway-dev-usage',
      USAGE_STORE_FAILURE: 'closed',
    });
    expect(set.usageTable).toBe('platform-gateway-dev-usage');
    expect(set.usageStoreFailure).toBe('closed');
    expect(() => loadConfig({ USAGE_STORE_FAILURE: 'ajar' })).toThrow(
      'USAGE_STORE_FAILURE: expected open or closed',
    );
    expect(() => loadConfig({ USAGE_TABLE: 'a b' })).toThrow(
      'USAGE_TABLE: expected a DynamoDB table name',
    );
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ SCAN_BASE_URL: '', UPSTREAM_TIMEOUT_MS: '' }).upstreamTimeoutMs).toBe(8000);
  });

  it('defaults to Secrets Manager inside a real Lambda container, not under serverless offline', () => {
    const lambda = { AWS_LAMBDA_FUNCTION_NAME: 'fn', SECRET_ID: 'id' };
    expect(loadConfig(lambda).secretsSource).toBe('aws');
    expect(loadConfig({ ...lambda, IS_OFFLINE: 'true' }).secretsSource).toBe('file');
  });

  it.each([
    ['UPSTREAM_TIMEOUT_MS', 'soon'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['EMULATOR_PORT', '70000'],
    ['SCAN_BASE_URL', 'ftp://example.com'],
    ['OPENAPI_BASE_URL', 'not a url'],
    ['OPENAPI_SERVICE_URLS', '{nmt:'],
    ['OPENAPI_SERVICE_URLS', '{"nmt":"not a url"}'],
    ['GATEWAY_VENDOR', 'x-ncp'],
    ['SECRETS_SOURCE', 'vault'],
    ['SECRETS_TTL_SECONDS', '-1'],
  ])('fails fast on a bad %s, naming it but not its value', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain(value);
  });

  it('has no base URL default when deployed, and says so when a function needs one', () => {
    const deployed = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fn', SECRET_ID: 'id' });
    expect(deployed.scanBaseUrl).toBeUndefined();
    expect(deployed.openapiBaseUrl).toBeUndefined();
    expect(() => requiredSetting(deployed.scanBaseUrl, 'SCAN_BASE_URL')).toThrow(
      /SCAN_BASE_URL: required when deployed/,
    );
  });

  it('needs SECRET_ID for the aws source, unless each capability has a secret of its own', () => {
    expect(() => loadConfig({ SECRETS_SOURCE: 'aws' })).toThrow(/SECRET_ID/);
    const own = {
      SIGNING_SECRET_ID: 'gw/dev/signing',
      CATALOGUE_SECRET_ID: 'gw/dev/catalogue',
      EXECUTION_SECRET_ID: 'gw/dev/execution',
      WEBHOOKS_SECRET_ID: 'gw/dev/webhooks',
    };
    expect(() => loadConfig({ SECRETS_SOURCE: 'aws', ...own })).toThrow(/CALLERS_SECRET_ID/);
    const config = loadConfig({
      SECRETS_SOURCE: 'aws',
      ...own,
      CALLERS_SECRET_ID: 'gw/dev/callers',
    });
    expect(config.secretId).toBeUndefined();
    expect(config.secretIds).toEqual({
      signing: 'gw/dev/signing',
      catalogue: 'gw/dev/catalogue',
      execution: 'gw/dev/execution',
      webhooks: 'gw/dev/webhooks',
      callers: 'gw/dev/callers',
    });
  });

  it('wants https base URLs when deployed, loopback hosts excepted, naming the variable', () => {
    const deployed = { AWS_LAMBDA_FUNCTION_NAME: 'fn', SECRET_ID: 'id' };
    expect(() => loadConfig({ ...deployed, SCAN_BASE_URL: 'http://wsc.example.com' })).toThrow(
      /SCAN_BASE_URL: expected an https URL when deployed/,
    );
    expect(() =>
      loadConfig({ ...deployed, OPENAPI_SERVICE_URLS: '{"nmt":"http://papago.example.com"}' }),
    ).toThrow(/OPENAPI_SERVICE_URLS\.nmt: expected an https URL/);
    for (const local of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) {
      expect(loadConfig({ ...deployed, SCAN_BASE_URL: local }).scanBaseUrl?.href).toContain(
        local.replace('http://', ''),
      );
    }
    // Locally, plain http anywhere is fine (a gateway on the LAN, say).
    expect(loadConfig({ SCAN_BASE_URL: 'http://wsc.example.com' }).scanBaseUrl?.protocol).toBe(
      'http:',
    );
  });

  it('reads the secret through the extension only when its port and a session token are set', () => {
    const aws = { SECRETS_SOURCE: 'aws', SECRET_ID: 'gw/dev' };
    expect(
      loadConfig({ ...aws, SECRETS_EXTENSION_PORT: '2773', AWS_SESSION_TOKEN: 'tok' })
        .secretsExtension,
    ).toEqual({ port: 2773, token: 'tok' });
    expect(loadConfig({ ...aws, SECRETS_EXTENSION_PORT: '2773' }).secretsExtension).toBeUndefined();
    expect(loadConfig({ ...aws, SECRETS_EXTENSION_PORT: '' }).secretsExtension).toBeUndefined();
    expect(() => loadConfig({ ...aws, SECRETS_EXTENSION_PORT: 'x' })).toThrow(
      /SECRETS_EXTENSION_PORT/,
    );
  });

  it('reads the webhook body limit: 1 MiB by default, at most what Lambda carries', () => {
    expect(loadConfig({}).webhookMaxBodyBytes).toBe(1_048_576);
    expect(loadConfig({ WEBHOOK_MAX_BODY_BYTES: '6291456' }).webhookMaxBodyBytes).toBe(6_291_456);
    for (const value of ['6291457', '0', '1e6', '-1']) {
      expect(() => loadConfig({ WEBHOOK_MAX_BODY_BYTES: value })).toThrow(/WEBHOOK_MAX_BODY_BYTES/);
    }
  });
});

describe('the S3 endpoint', () => {
  it("finds S3 at its own endpoint, else the SDK's shared one; none on AWS", () => {
    const own = 'http://127.0.0.1:5001';
    const shared = 'http://127.0.0.1:4566';
    const endpointOf = (env: NodeJS.ProcessEnv) => loadConfig(env).aws.s3Endpoint?.toString();
    expect(endpointOf({ AWS_ENDPOINT_URL: shared, AWS_ENDPOINT_URL_S3: own })).toBe(`${own}/`);
    expect(endpointOf({ AWS_ENDPOINT_URL: shared, AWS_ENDPOINT_URL_S3: '' })).toBe(`${shared}/`);
    expect(endpointOf({ AWS_REGION: 'eu-central-1', AWS_ENDPOINT_URL: '' })).toBeUndefined();
  });
});
