/**
 * The environment variables the package reads, and how each is parsed: a table, read by
 * config.ts (the one place that reads the environment) into the Config the functions use; and
 * the function's AWS environment, as the AWS SDK would read it.
 * A value that does not parse names the variable, never its value.
 */
import * as z from 'zod/mini';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from './lambda-limits.ts';
import { SECRET_CAPABILITIES, secretIdSetting } from './secret-capabilities.ts';

const trueOrFalse = z.enum(['true', 'false'], 'expected true or false');

export const logLevelSchema = z.enum(
  ['debug', 'info', 'warn', 'error'],
  'expected debug, info, warn or error',
);

/** Whether GET /docs and GET /openapi.json answer without a token (the stage's publicReference). */
export const publicReferenceSchema = trueOrFalse;

/**
 * The table of every variable. Built when the configuration is read (config.ts, loadConfig), not
 * when the module loads: a function that reads only its log level (health) bundles none of it.
 */
export function environmentSchema() {
  const positiveInt = z.pipe(
    z.string().check(z.regex(/^[1-9][0-9]*$/, 'expected a positive integer')),
    z.transform(Number),
  );
  const port = z.pipe(
    positiveInt,
    z.number().check(z.lte(65535, 'expected a port number (1-65535)')),
  );
  const httpUrl = z.pipe(
    z.url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL' }),
    z.transform((value) => new URL(value)),
  );
  const serviceUrls = z.pipe(
    z.pipe(
      z.string(),
      z.transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({ code: 'custom', message: 'expected a JSON object', input: text });
          return z.NEVER;
        }
      }),
    ),
    // The record's own message: zod says a bad key or a non-object only as "Invalid input".
    z.record(
      z.string().check(z.regex(/^[a-z0-9-]+$/)),
      httpUrl,
      'expected a JSON object of service path segments ("nmt") to URLs',
    ),
  );

  const bucketName = z
    .string()
    .check(z.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name'));

  const tableName = z
    .string()
    .check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'expected a DynamoDB table name'));

  const region = z.string().check(z.regex(/^[a-z0-9-]{1,32}$/, 'expected a region'));

  const queueUrl = z.url({ protocol: /^https?$/, error: 'expected the URL of an SQS queue' });

  const wholeSeconds = z.pipe(
    z.string().check(z.regex(/^[0-9]+$/, 'expected a whole number of seconds')),
    z.transform(Number),
  );

  const nonEmpty = z.string().check(z.minLength(1));

  // The dispatcher keeps 64 connections per origin (upstream/dispatch.ts): more calls would queue.
  const concurrency = z.pipe(
    positiveInt,
    z.number().check(z.lte(64, 'expected at most 64 calls at once')),
  );

  return z.object({
    EMULATOR_PORT: z.optional(port),
    SCAN_BASE_URL: z.optional(httpUrl),
    OPENAPI_BASE_URL: z.optional(httpUrl),
    OPENAPI_SERVICE_URLS: z.optional(serviceUrls),
    GATEWAY_VENDOR: z.optional(
      z.string().check(z.regex(/^[A-Za-z0-9]+$/, 'expected a single word of letters and digits')),
    ),
    SECRETS_SOURCE: z.optional(z.enum(['file', 'aws'], 'expected file or aws')),
    SECRETS_FILE: z.optional(nonEmpty),
    SECRET_ID: z.optional(nonEmpty),
    ...Object.fromEntries(
      SECRET_CAPABILITIES.map((capability) => [secretIdSetting(capability), z.optional(nonEmpty)]),
    ),
    JWT_ISSUER_URL: z.optional(
      z.url({ protocol: /^https?$/, error: 'expected the issuer URL of the JWT authorizer' }),
    ),
    JWT_ALLOW_STAR_SCOPE: z.optional(trueOrFalse),
    SECRETS_EXTENSION_PORT: z.optional(port),
    SECRETS_READER: z.optional(
      z.enum(['signed', 'extension', 'sdk'], 'expected signed, extension or sdk'),
    ),
    // Set by Lambda (and read by the AWS SDK): the region, the role's credentials.
    AWS_REGION: z.optional(region),
    AWS_DEFAULT_REGION: z.optional(region),
    AWS_ACCESS_KEY_ID: z.optional(z.string()),
    AWS_SECRET_ACCESS_KEY: z.optional(z.string()),
    AWS_ENDPOINT_URL: z.optional(httpUrl),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: z.optional(httpUrl),
    AWS_ENDPOINT_URL_S3: z.optional(httpUrl),
    // Set by Lambda: the extension accepts a request that carries it.
    AWS_SESSION_TOKEN: z.optional(z.string()),
    SECRETS_TTL_SECONDS: z.optional(wholeSeconds),
    CALLERS_MAX_STALE_SECONDS: z.optional(wholeSeconds),
    UPSTREAM_TIMEOUT_MS: z.optional(positiveInt),
    WEBHOOK_MAX_BODY_BYTES: z.optional(
      z.pipe(
        positiveInt,
        z
          .number()
          .check(
            z.lte(
              LAMBDA_PAYLOAD_LIMIT_BYTES,
              `expected at most ${LAMBDA_PAYLOAD_LIMIT_BYTES} bytes (what Lambda carries)`,
            ),
          ),
      ),
    ),
    BULK_PAGE_SIZE: z.optional(
      z.pipe(positiveInt, z.number().check(z.lte(1000, 'expected a page size of at most 1000'))),
    ),
    BULK_PAGE_CONCURRENCY: z.optional(concurrency),
    BULK_CANCEL_CONCURRENCY: z.optional(concurrency),
    WATCHER_STATE_TABLE: z.optional(tableName),
    WATCHER_STATE_FILE: z.optional(nonEmpty),
    EVENT_BUS_NAME: z.optional(
      z.string().check(z.regex(/^[A-Za-z0-9/_.:-]{1,1600}$/, 'expected an event bus name or ARN')),
    ),
    INVOCATION_QUEUE_URL: z.optional(queueUrl),
    INVOCATION_DEAD_LETTER_QUEUE_URL: z.optional(queueUrl),
    DELIVERY_BODY_BUCKET: z.optional(bucketName),
    DELIVERY_MEMORY_DAYS: z.optional(positiveInt),
    INVOCATION_MAX_RECEIVES: z.optional(positiveInt),
    INVOCATION_MAX_ATTEMPTS: z.optional(positiveInt),
    INVOCATION_RETRY_SECONDS: z.optional(positiveInt),
    LOG_LEVEL: z.optional(logLevelSchema),
    PUBLIC_REFERENCE: z.optional(publicReferenceSchema),
    DELIVERY_LEDGER_TABLE: z.optional(tableName),
    USAGE_TABLE: z.optional(tableName),
    USAGE_STORE_FAILURE: z.optional(z.enum(['open', 'closed'], 'expected open or closed')),
    HAND_OFF_BUCKET: z.optional(bucketName),
    HAND_OFF_MAX_MB: z.optional(
      z.pipe(positiveInt, z.number().check(z.lte(5000, 'expected at most 5000 (MB)'))),
    ),
  });
}

/** The variables as parsed: each absent unless set to a non-empty value. */
export type Environment = z.infer<ReturnType<typeof environmentSchema>>;

/** The function's AWS environment, as Lambda sets it (and as the AWS SDK reads it). */
export interface AwsEnvironment {
  readonly region: string | undefined;
  /** The function's role credentials; undefined where they are not in the environment. */
  readonly credentials:
    | {
        readonly accessKeyId: string;
        readonly secretAccessKey: string;
        readonly sessionToken?: string | undefined;
      }
    | undefined;
  /**
   * Where Secrets Manager answers: AWS_ENDPOINT_URL_SECRETS_MANAGER, else AWS_ENDPOINT_URL (as
   * the SDK honours them), else the region's endpoint.
   */
  readonly secretsManagerEndpoint: URL | undefined;
  /**
   * Where S3 answers, when not AWS's own endpoints: AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL
   * (a local stand-in, moto); undefined for the region's endpoint.
   */
  readonly s3Endpoint: URL | undefined;
}

/** The AWS part of the environment, as the AWS SDK reads it. */
export function awsEnvironmentOf(vars: Environment): AwsEnvironment {
  const region = vars.AWS_REGION ?? vars.AWS_DEFAULT_REGION;
  const endpoint =
    vars.AWS_ENDPOINT_URL_SECRETS_MANAGER ??
    vars.AWS_ENDPOINT_URL ??
    (region ? new URL(`https://secretsmanager.${region}.amazonaws.com`) : undefined);
  const credentials =
    vars.AWS_ACCESS_KEY_ID && vars.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: vars.AWS_ACCESS_KEY_ID,
          secretAccessKey: vars.AWS_SECRET_ACCESS_KEY,
          sessionToken: vars.AWS_SESSION_TOKEN,
        }
      : undefined;
  return {
    region,
    credentials,
    secretsManagerEndpoint: endpoint,
    s3Endpoint: vars.AWS_ENDPOINT_URL_S3 ?? vars.AWS_ENDPOINT_URL,
  };
}
