/**
 * The environment's table (lib/core/environment.ts): how each variable parses, what a value that
 * does not parse is told (the variable, what was expected, never the value), and the function's
 * AWS environment as the AWS SDK reads it. config.test.ts holds what loadConfig makes of it.
 */
import { describe, expect, it } from 'vitest';
import {
  awsEnvironmentOf,
  type Environment,
  environmentSchema,
  logLevelSchema,
  publicReferenceSchema,
} from '../../../../lib/core/environment.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../../../lib/core/lambda-limits.ts';
import { SECRET_CAPABILITIES, secretIdSetting } from '../../../../lib/core/secret-capabilities.ts';

const parsed = (vars: Record<string, string>) => environmentSchema().parse(vars);

/** The issues of a set of variables that does not parse, as `path: message`. */
function problems(vars: Record<string, string>): { path: string; message: string }[] {
  const result = environmentSchema().safeParse(vars);
  if (result.success) throw new Error(`parsed: ${JSON.stringify(vars)}`);
  return result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

describe('the environment table', () => {
  it('reads numbers, ports and URLs as what they are', () => {
    const vars = parsed({
      EMULATOR_PORT: '4010',
      SCAN_BASE_URL: 'https://wsc.example.com/prefix',
      OPENAPI_SERVICE_URLS:
        '{"nmt":"https://papago.example.com","map-geocode":"http://127.0.0.1:9"}',
      UPSTREAM_TIMEOUT_MS: '1500',
      SECRETS_TTL_SECONDS: '0',
      BULK_PAGE_CONCURRENCY: '64',
      WEBHOOK_MAX_BODY_BYTES: String(LAMBDA_PAYLOAD_LIMIT_BYTES),
    });
    expect(vars.EMULATOR_PORT).toBe(4010);
    expect(vars.SCAN_BASE_URL).toBeInstanceOf(URL);
    expect(vars.SCAN_BASE_URL?.pathname).toBe('/prefix');
    expect(vars.OPENAPI_SERVICE_URLS?.nmt?.href).toBe('https://papago.example.com/');
    expect(vars.OPENAPI_SERVICE_URLS?.['map-geocode']?.port).toBe('9');
    expect(vars.UPSTREAM_TIMEOUT_MS).toBe(1500);
    // A TTL of 0 is a choice (no cache); a timeout of 0 is not.
    expect(vars.SECRETS_TTL_SECONDS).toBe(0);
    expect(vars.BULK_PAGE_CONCURRENCY).toBe(64);
    expect(vars.WEBHOOK_MAX_BODY_BYTES).toBe(LAMBDA_PAYLOAD_LIMIT_BYTES);
  });

  it('leaves every variable absent when nothing is set, and drops what it does not know', () => {
    expect(parsed({})).toEqual({});
    expect(parsed({ PATH: '/usr/bin', HOME: '/root' })).toEqual({});
  });

  it("knows each capability's own secret id (SIGNING_SECRET_ID, ...)", () => {
    const vars = Object.fromEntries(
      SECRET_CAPABILITIES.map((capability) => [secretIdSetting(capability), `gw/${capability}`]),
    );
    expect(parsed(vars)).toEqual(vars);
  });

  it.each([
    ['UPSTREAM_TIMEOUT_MS', '0', 'expected a positive integer'],
    ['UPSTREAM_TIMEOUT_MS', '1e3', 'expected a positive integer'],
    ['UPSTREAM_TIMEOUT_MS', '08', 'expected a positive integer'],
    ['EMULATOR_PORT', '65536', 'expected a port number (1-65535)'],
    ['SECRETS_EXTENSION_PORT', '-1', 'expected a positive integer'],
    ['SECRETS_TTL_SECONDS', '1.5', 'expected a whole number of seconds'],
    ['BULK_PAGE_CONCURRENCY', '65', 'expected at most 64 calls at once'],
    ['BULK_CANCEL_CONCURRENCY', '100', 'expected at most 64 calls at once'],
    ['BULK_PAGE_SIZE', '1001', 'expected a page size of at most 1000'],
    [
      'WEBHOOK_MAX_BODY_BYTES',
      String(LAMBDA_PAYLOAD_LIMIT_BYTES + 1),
      `expected at most ${LAMBDA_PAYLOAD_LIMIT_BYTES} bytes (what Lambda carries)`,
    ],
    ['SCAN_BASE_URL', 'ftp://wsc.example.com', 'expected an absolute http(s) URL'],
    ['OPENAPI_BASE_URL', 'wsc.example.com', 'expected an absolute http(s) URL'],
    ['OPENAPI_SERVICE_URLS', '{"nmt":', 'expected a JSON object'],
    ['GATEWAY_VENDOR', 'x-ncp', 'expected a single word of letters and digits'],
    ['JWT_ISSUER_URL', 'issuer', 'expected the issuer URL of the JWT authorizer'],
    ['JWT_ALLOW_STAR_SCOPE', 'yes', 'expected true or false'],
    ['AWS_REGION', 'US East', 'expected a region'],
    ['WATCHER_STATE_TABLE', 'a b', 'expected a DynamoDB table name'],
    ['EVENT_BUS_NAME', 'bus name', 'expected an event bus name or ARN'],
    ['INVOCATION_QUEUE_URL', 'queue', 'expected the URL of an SQS queue'],
    ['DELIVERY_BODY_BUCKET', 'Bodies', 'expected an S3 bucket name'],
    ['LOG_LEVEL', 'verbose', 'expected debug, info, warn or error'],
    ['PUBLIC_REFERENCE', 'off', 'expected true or false'],
    ['USAGE_STORE_FAILURE', 'ajar', 'expected open or closed'],
  ])('refuses %s=%s with what it expected', (name, value, expected) => {
    expect(problems({ [name]: value })).toEqual([{ path: name, message: expected }]);
  });

  it("names a bad service of OPENAPI_SERVICE_URLS by its key, with the URL's problem", () => {
    expect(problems({ OPENAPI_SERVICE_URLS: '{"nmt":"ftp://papago.example.com"}' })).toEqual([
      { path: 'OPENAPI_SERVICE_URLS.nmt', message: 'expected an absolute http(s) URL' },
    ]);
  });

  it.each([
    ['SECRETS_SOURCE', 'vault', 'expected file or aws'],
    ['SECRETS_READER', 'kms', 'expected signed, extension or sdk'],
    [
      'OPENAPI_SERVICE_URLS',
      '["https://papago.example.com"]',
      'expected a JSON object of service path segments ("nmt") to URLs',
    ],
  ])('teaches on %s=%s too: %s', (name, value, expected) => {
    expect(problems({ [name]: value })).toEqual([{ path: name, message: expected }]);
  });

  it('says what a service of OPENAPI_SERVICE_URLS must be named', () => {
    expect(
      problems({ OPENAPI_SERVICE_URLS: '{"Papago NMT":"https://papago.example.com"}' }),
    ).toEqual([
      {
        path: 'OPENAPI_SERVICE_URLS.Papago NMT',
        message: 'expected a JSON object of service path segments ("nmt") to URLs',
      },
    ]);
  });

  it('never answers with zod\'s bare "Invalid input": each variable says what it expected', () => {
    // Any value but the empty string, which loadConfig reads as unset.
    for (const name of Object.keys(environmentSchema().shape)) {
      const result = environmentSchema().safeParse({ [name]: ' not this ' });
      for (const issue of result.error?.issues ?? []) {
        expect(issue.message, name).not.toBe('Invalid input');
      }
    }
  });

  it('never says the value it refused, whatever the variable', () => {
    const marker = 'sekrit-value-0123';
    const bad: Record<string, string> = {
      UPSTREAM_TIMEOUT_MS: marker,
      EMULATOR_PORT: marker,
      SCAN_BASE_URL: marker,
      OPENAPI_SERVICE_URLS: `{"nmt":"https://${marker}:x@"}`,
      GATEWAY_VENDOR: `${marker}!`,
      SECRETS_SOURCE: marker,
      SECRETS_READER: marker,
      JWT_ISSUER_URL: marker,
      AWS_REGION: `${marker}!`,
      AWS_ENDPOINT_URL: marker,
      EVENT_BUS_NAME: `${marker} `,
      DELIVERY_BODY_BUCKET: `${marker}!`,
      LOG_LEVEL: marker,
      USAGE_TABLE: `${marker}!`,
    };
    const found = problems(bad);
    // Each variable refused once, by its name.
    expect(found.map((problem) => problem.path.split('.')[0]).sort()).toEqual(
      Object.keys(bad).sort(),
    );
    for (const problem of found) {
      expect(`${problem.path}: ${problem.message}`).not.toContain(marker);
    }
  });

  it('takes only the log levels and the public reference words it documents', () => {
    expect(logLevelSchema.options).toEqual(['debug', 'info', 'warn', 'error']);
    expect(publicReferenceSchema.safeParse('false').data).toBe('false');
    expect(publicReferenceSchema.safeParse('FALSE').success).toBe(false);
  });
});

describe('awsEnvironmentOf', () => {
  const of = (vars: Environment) => awsEnvironmentOf(vars);

  it('takes AWS_REGION over AWS_DEFAULT_REGION, as the SDK does', () => {
    expect(of({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1' }).region).toBe(
      'eu-west-1',
    );
    expect(of({ AWS_DEFAULT_REGION: 'us-east-1' }).region).toBe('us-east-1');
    expect(of({}).region).toBeUndefined();
  });

  it("has the role's credentials only when both the key id and the secret key are set", () => {
    expect(of({ AWS_ACCESS_KEY_ID: 'AKID' }).credentials).toBeUndefined();
    expect(of({ AWS_SECRET_ACCESS_KEY: 'secret' }).credentials).toBeUndefined();
    expect(
      of({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'tok' })
        .credentials,
    ).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'tok' });
    expect(
      of({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' }).credentials?.sessionToken,
    ).toBeUndefined();
  });

  it("finds Secrets Manager at its own endpoint, else the SDK's shared one, else the region's", () => {
    const own = new URL('http://127.0.0.1:5000');
    const shared = new URL('http://127.0.0.1:4566');
    const region = 'eu-central-1';
    expect(
      of({
        AWS_REGION: region,
        AWS_ENDPOINT_URL: shared,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: own,
      }).secretsManagerEndpoint,
    ).toBe(own);
    expect(of({ AWS_REGION: region, AWS_ENDPOINT_URL: shared }).secretsManagerEndpoint).toBe(
      shared,
    );
    expect(of({ AWS_REGION: region }).secretsManagerEndpoint?.href).toBe(
      'https://secretsmanager.eu-central-1.amazonaws.com/',
    );
    // No region, no endpoint: the SDK reader takes over (runtime.ts).
    expect(of({}).secretsManagerEndpoint).toBeUndefined();
  });

  it('reads the variables as the table parsed them', () => {
    const aws = of(
      parsed({
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:5000',
      }),
    );
    expect(aws.secretsManagerEndpoint?.href).toBe('http://127.0.0.1:5000/');
    expect(aws.credentials?.accessKeyId).toBe('AKID');
  });
});
