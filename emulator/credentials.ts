import { readFileSync } from 'node:fs';
import { z } from 'zod';

interface AccessKeyPair {
  accessKey: string;
  secretKey: string;
  active: boolean;
}

interface GatewayApiKey {
  key: string;
  active: boolean;
}

interface CatalogueApp {
  clientId: string;
  clientSecret: string;
}

/** What the emulated gateway knows about its callers. */
export interface EmulatorCredentials {
  accessKeys: AccessKeyPair[];
  /** Gateway API keys (primary/secondary). */
  apiKeys: GatewayApiKey[];
  /** Whether the scan job API requires x-<vendor>-apigw-api-key. */
  requireApiKey: boolean;
  /** Open API catalogue applications. */
  apps: CatalogueApp[];
}

/** A deactivated access key the demo gateway knows, so tests can prove it is refused. */
export const INACTIVE_ACCESS_KEY = 'DEMOINACTIVEKEY00001';
export const INACTIVE_SECRET_KEY = 'DEMOINACTIVESECRET0000000000000000000001';
/** A deactivated gateway API key. */
export const INACTIVE_API_KEY = 'demo-inactive-gateway-api-key';

export const DEMO_SECRET_URL = new URL('./demo-secret.json', import.meta.url);

const demoSecretSchema = z.object({
  iam: z.object({ accessKey: z.string().min(1), secretKey: z.string().min(1) }),
  apiKey: z.string().min(1),
  openapi: z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1) }),
});

function readDemoSecret(): z.infer<typeof demoSecretSchema> {
  const parsed = demoSecretSchema.safeParse(JSON.parse(readFileSync(DEMO_SECRET_URL, 'utf8')));
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`emulator/demo-secret.json is missing or has malformed fields: ${fields}`);
  }
  return parsed.data;
}

/** The gateway's view of the bundled demo secret, plus inactive keys to test refusals with. */
export function demoCredentials(): EmulatorCredentials {
  const secret = readDemoSecret();
  return {
    accessKeys: [
      { accessKey: secret.iam.accessKey, secretKey: secret.iam.secretKey, active: true },
      { accessKey: INACTIVE_ACCESS_KEY, secretKey: INACTIVE_SECRET_KEY, active: false },
    ],
    apiKeys: [
      { key: secret.apiKey, active: true },
      { key: INACTIVE_API_KEY, active: false },
    ],
    requireApiKey: true,
    apps: [{ clientId: secret.openapi.clientId, clientSecret: secret.openapi.clientSecret }],
  };
}
