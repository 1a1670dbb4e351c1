/**
 * Where the secret's JSON text comes from: a local file, or AWS Secrets Manager, read through
 * the AWS Parameters and Secrets Lambda Extension when its layer is attached (a local HTTP
 * call, no SDK on the cold path), else with the SDK. The SDK is loaded on first use only, and is
 * not in the bundles: Lambda's Node.js runtime provides it.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ExtensionUnreachableError } from '../core/errors.ts';
import { jsonObjectOf } from '../core/json.ts';
import { type DispatchedAnswer, dispatchOnce } from '../upstream/dispatch.ts';
import { Agent, type Dispatcher } from '../upstream/undici.ts';

export interface SecretSource {
  /** For log lines: where the secret comes from (a path or a secret id, never a value). */
  readonly description: string;
  /** The secret's JSON text. */
  fetchText(): Promise<string>;
}

export function fileSecretSource(path: string): SecretSource {
  return {
    description: `file ${path}`,
    // Loaded on first use: a deployed function never reads a file (about 0.8 ms of its cold start).
    fetchText: async () => (await import('node:fs/promises')).readFile(path, 'utf8'),
  };
}

interface AwsSecretSourceOptions {
  readonly secretId: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: SecretsManagerClient;
}

export function awsSecretSource(options: AwsSecretSourceOptions): SecretSource {
  let client: SecretsManagerClient | undefined = options.client;
  return {
    description: `Secrets Manager ${options.secretId}`,
    async fetchText() {
      const sdk = await import('@aws-sdk/client-secrets-manager');
      client ??= new sdk.SecretsManagerClient({
        // Bounded so that a slow Secrets Manager cannot eat the whole function timeout.
        requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
        maxAttempts: 3,
      });
      const answer = await client.send(
        new sdk.GetSecretValueCommand({ SecretId: options.secretId }),
      );
      if (answer.SecretString !== undefined) return answer.SecretString;
      if (answer.SecretBinary !== undefined)
        return Buffer.from(answer.SecretBinary).toString('utf8');
      throw new Error('The secret has neither SecretString nor SecretBinary');
    },
  };
}

/**
 * A secret value is at most 64 KB (Secrets Manager's quota); the extension's answer, with the
 * value escaped or in base64 and its metadata, stays well under this.
 */
const MAX_EXTENSION_ANSWER_BYTES = 1024 * 1024;

interface ExtensionSecretSourceOptions {
  readonly secretId: string;
  /** The extension's local port (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, 2773 by default). */
  readonly port: number;
  /** The function's session token: the extension refuses a request without it. */
  readonly token: string;
  /** Where the extension listens; `localhost` in Lambda, a stand-in in tests. */
  readonly host?: string;
  /** The container's dispatcher (one per container); its own when none is given. */
  readonly dispatcher?: Dispatcher;
}

/**
 * The AWS Parameters and Secrets Lambda Extension: `GET /secretsmanager/get?secretId=` on its
 * local port answers what GetSecretValue answers, from its cache when it has it.
 * https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
 */
export function extensionSecretSource(options: ExtensionSecretSourceOptions): SecretSource {
  // The same undici exchange as the upstream calls: node:http would be one more module to load
  // during the cold start, and a different path would leave the first upstream call cold.
  let agent: Dispatcher | undefined = options.dispatcher;
  return {
    description: `Secrets Manager ${options.secretId} (Lambda extension)`,
    async fetchText() {
      agent ??= new Agent({ keepAliveTimeout: 60_000 });
      let answer: DispatchedAnswer;
      try {
        answer = await dispatchOnce(
          agent,
          {
            origin: `http://${options.host ?? 'localhost'}:${options.port}`,
            path: `/secretsmanager/get?secretId=${encodeURIComponent(options.secretId)}`,
            method: 'GET',
            headers: { 'x-aws-parameters-secrets-token': options.token },
            headersTimeout: 3000,
            bodyTimeout: 3000,
          },
          { maxBodyBytes: MAX_EXTENSION_ANSWER_BYTES },
        );
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ECONNREFUSED') throw new ExtensionUnreachableError((error as Error).message);
        throw error;
      }
      const text = answer.body.toString('utf8');
      // The extension's own refusals name a status and a reason, never a value.
      if (answer.status !== 200) {
        throw new Error(`The secrets extension answered ${answer.status}`);
      }
      const parsed = jsonObjectOf(text);
      if (!parsed) throw new Error('The secrets extension answered something other than JSON');
      if (typeof parsed.SecretString === 'string') return parsed.SecretString;
      if (typeof parsed.SecretBinary === 'string') {
        return Buffer.from(parsed.SecretBinary, 'base64').toString('utf8');
      }
      throw new Error('The secret has neither SecretString nor SecretBinary');
    },
  };
}

/**
 * A source that hands over to the SDK for good when it meets a failure the SDK may not (the
 * extension's layer is missing; the signed read's credentials are refused, where the SDK's
 * credential chain may find others); any other failure is the source's own, reported as such.
 */
export function fallingBackToSdk(
  primary: SecretSource,
  sdk: SecretSource,
  fallsBack: (error: unknown) => boolean,
  onFallback?: (reason: string) => void,
): SecretSource {
  let current = primary;
  return {
    get description() {
      return current.description;
    },
    async fetchText() {
      try {
        return await current.fetchText();
      } catch (error) {
        if (current !== primary || !fallsBack(error)) throw error;
        onFallback?.((error as Error).message);
        current = sdk;
        return current.fetchText();
      }
    },
  };
}

/** The extension when it is there, the SDK when it is not (its layer is missing). */
export function extensionOrSdkSource(
  extension: SecretSource,
  sdk: SecretSource,
  onFallback?: (reason: string) => void,
): SecretSource {
  return fallingBackToSdk(
    extension,
    sdk,
    (error) => error instanceof ExtensionUnreachableError,
    onFallback,
  );
}
