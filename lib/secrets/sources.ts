/**
 * Where the secret's JSON text comes from: a local file, or AWS Secrets Manager. The SDK is
 * imported on first use, so that a function running on the file source never evaluates it.
 */
import { readFile } from 'node:fs/promises';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface SecretSource {
  /** For log lines: where the secret comes from (a path or a secret id, never a value). */
  readonly description: string;
  /** The secret's JSON text. */
  fetchText(): Promise<string>;
}

export function fileSecretSource(path: string): SecretSource {
  return {
    description: `file ${path}`,
    fetchText: () => readFile(path, 'utf8'),
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
