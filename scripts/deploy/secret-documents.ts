/**
 * The secret documents of a stage, checked as a deploy needs them: each parses as the functions
 * parse it (lib/secrets/store.ts `parseSecret`, with the fields of its capabilities and the
 * deployed rules), every capability has its document, and no stage, `dev` included, holds a
 * credential published in this repository (the demo secret's tokens, webhook secrets and keys)
 * or a caller token in plain text (its digest, `tokenSha256`, instead). An action or trigger URL
 * must be https on a public host. Only a rehearsal, whose platform and AWS are both stand-ins on
 * this machine, may hold the emulator's keys and URLs on this machine. Each problem is one line
 * that names the document and the field (never a value) and says what to do.
 *
 * `npm run preflight` checks the documents of a directory (as `npm run split-secret` writes
 * them) and, with credentials, the secrets themselves; `npm run split-secret` checks the parts
 * it is about to write. Local runs (`npm start`, serverless offline, `invoke local`) read the
 * demo secret itself and pass through none of this.
 */
import { readFileSync } from 'node:fs';
import {
  SECRET_CAPABILITIES,
  type SecretCapability,
  secretIdSetting,
} from '../../lib/core/secret-capabilities.ts';
import { tokenDigestOf } from '../../lib/secrets/callers-schema.ts';
import {
  CAPABILITY_FIELDS,
  type PlatformSecret,
  webhookKeyOf,
  webhookSecretsOf,
} from '../../lib/secrets/schema.ts';
import { parseSecret } from '../../lib/secrets/store.ts';
import * as hosts from '../../sls/resolvers/hosts.ts';
import { DEMO_SECRETS_FILE } from '../local/paths.ts';

/** What the checks need to know of the stage. */
export interface SecretStage {
  readonly stage: string;
  /**
   * The stage's platform and AWS are both stand-ins on this machine (standInOf: a rehearsal):
   * its documents may hold the emulator's keys and URLs on this machine.
   */
  readonly standIn: boolean;
  /** Callers come from a JWT issuer: no function reads the callers' document. */
  readonly jwt: boolean;
}

/**
 * Whether a stage is deployed to stand-ins on this machine only: both base URLs on loopback, and
 * every AWS call to a stand-in AWS on loopback (`AWS_ENDPOINT_URL`, as `npm run rehearse` sets
 * it). A loopback platform deployed to AWS itself is no stand-in: its functions cannot reach it.
 */
export function standInOf(
  scanBaseUrl: unknown,
  openapiBaseUrl: unknown,
  env: NodeJS.ProcessEnv,
): boolean {
  return (
    hosts.isLoopbackUrl(scanBaseUrl) &&
    hosts.isLoopbackUrl(openapiBaseUrl) &&
    hosts.awsStandIn(env) !== undefined
  );
}

/** One secret of the stage: its id and the capabilities it holds (one, or all in `single`). */
export interface StageSecret {
  readonly id: string;
  readonly capabilities: readonly SecretCapability[];
}

/** What reads each capability, and what its document holds. */
const CAPABILITY_HINTS: Record<SecretCapability, { readers: string; fill: string }> = {
  signing: {
    readers: 'the scan job functions and the watcher sign every call with it',
    fill: '"iam": {"accessKey": ..., "secretKey": ...}',
  },
  catalogue: {
    readers: 'the catalogue functions read it',
    fill: '"openapi": {"clientId": ..., "clientSecret": ...}',
  },
  execution: {
    readers: 'the action, trigger and queue functions read it',
    fill: '"actions": {...} (or {} where the stage runs none)',
  },
  webhooks: {
    readers: 'the webhook receiver reads it',
    fill: '"webhooks": {...} (or {} where the stage receives none)',
  },
  callers: {
    readers: 'every function behind a caller token reads it',
    fill: '"callers": [the entry `npm run new-caller -- <id> <scope>` prints]',
  },
};

/** The stage's secrets from its functions' environment (SECRET_ID, SIGNING_SECRET_ID, ...). */
export function stageSecrets(environment: Readonly<Record<string, unknown>>): StageSecret[] {
  const byId = new Map<string, SecretCapability[]>();
  const single = String(environment.SECRET_ID ?? '').trim();
  for (const capability of SECRET_CAPABILITIES) {
    const id = String(environment[secretIdSetting(capability)] ?? '').trim() || single;
    if (!id) continue;
    byId.set(id, [...(byId.get(id) ?? []), capability]);
  }
  return [...byId].map(([id, capabilities]) => ({ id, capabilities }));
}

/** The file `npm run split-secret` writes a secret's document to: `<capability>.json`. */
export function documentFileOf(secret: StageSecret): string {
  return secret.capabilities.length === 1 ? `${secret.capabilities[0]}.json` : 'platform.json';
}

/** The capabilities the stage's functions read: all, but the callers' with a JWT issuer. */
export function neededCapabilities(stage: SecretStage): SecretCapability[] {
  return SECRET_CAPABILITIES.filter((capability) => !(stage.jwt && capability === 'callers'));
}

/**
 * A capability's document is missing (`what` says how: "secrets/webhooks.json is missing", ...):
 * why it is needed, what it holds, and (`empty`) how to make it empty where the stage does not
 * use the capability.
 */
export function missingCapability(
  capability: SecretCapability,
  what: string,
  empty: string,
): string {
  const hint = CAPABILITY_HINTS[capability];
  return (
    `${what}, but every capability's secret must exist (${hint.readers}, and a function whose secret is missing answers 500 900): ` +
    `add ${hint.fill}; where the stage does not use the ${capability} capability, ${empty}.`
  );
}

interface DemoValues {
  readonly tokenDigests: ReadonlySet<string>;
  readonly webhookKeys: ReadonlySet<string>;
  readonly keys: ReadonlySet<string>;
}

let demo: DemoValues | undefined;

/** The credentials of the demo secret, which anyone who reads this repository knows. */
function demoValues(): DemoValues {
  if (demo) return demo;
  const secret = JSON.parse(readFileSync(DEMO_SECRETS_FILE, 'utf8')) as PlatformSecret;
  demo = {
    tokenDigests: new Set((secret.callers ?? []).map((caller) => tokenDigestOf(caller))),
    webhookKeys: new Set(
      Object.values(secret.webhooks ?? {}).flatMap((entry) =>
        webhookSecretsOf(entry).map((each) => webhookKeyOf(each).toString('base64')),
      ),
    ),
    keys: new Set(
      [
        secret.iam?.accessKey,
        secret.iam?.secretKey,
        secret.apiKey,
        secret.openapi?.clientId,
        secret.openapi?.clientSecret,
      ].filter((each): each is string => typeof each === 'string'),
    ),
  };
  return demo;
}

/** What a stage's document may not hold, once it parses: in every stage, `dev` included. */
function stageRuleProblems(secret: PlatformSecret, where: string, stage: SecretStage): string[] {
  const found: string[] = [];
  const known = demoValues();
  const published = 'published in this repository (emulator/demo-secret.json)';
  (secret.callers ?? []).forEach((caller, index) => {
    const field = `${where}: callers.${index} (${caller.id})`;
    if (known.tokenDigests.has(tokenDigestOf(caller))) {
      found.push(
        `${field} holds a demo caller's token, ${published}: make a new one with \`npm run new-caller -- ${caller.id} <scope>\` and put the entry it prints in its place.`,
      );
    } else if (caller.token !== undefined) {
      found.push(
        `${field} holds its token in plain text, which anyone who reads the secret could call with: replace "token" by "tokenSha256", the output of \`printf %s '<token>' | sha256sum\` (docs/callers.md), or make a new caller with \`npm run new-caller\`.`,
      );
    }
  });
  if ((secret.callerTokens ?? []).length > 0) {
    found.push(
      `${where}: callerTokens holds tokens in plain text (deprecated): give each its own caller with \`npm run new-caller -- <id> <scope>\`, stored as its digest, and remove callerTokens.`,
    );
  }
  for (const [name, entry] of Object.entries(secret.webhooks ?? {})) {
    webhookSecretsOf(entry).forEach((each, index) => {
      if (!known.webhookKeys.has(webhookKeyOf(each).toString('base64'))) return;
      const field = entry.secrets ? `webhooks.${name}.secrets.${index}` : `webhooks.${name}.secret`;
      found.push(
        `${where}: ${field} is the demo webhook's secret, ${published}: make a new one (\`echo "whsec_$(openssl rand -base64 32)"\`) and give it to the sender.`,
      );
    });
  }
  if (stage.standIn) return found;
  const keys: [string, string | undefined][] = [
    ['iam.accessKey', secret.iam?.accessKey],
    ['iam.secretKey', secret.iam?.secretKey],
    ['apiKey', secret.apiKey],
    ['openapi.clientId', secret.openapi?.clientId],
    ['openapi.clientSecret', secret.openapi?.clientSecret],
  ];
  for (const [field, value] of keys) {
    if (value !== undefined && known.keys.has(value)) {
      found.push(
        `${where}: ${field} is the emulator's demo value, which the platform refuses: put the platform's own there (docs/deploy.md, "Where each platform credential comes from").`,
      );
    }
  }
  for (const kind of ['actions', 'triggers'] as const) {
    for (const [name, entry] of Object.entries(secret[kind] ?? {})) {
      if (hosts.isPublicHttpsUrl(entry.url)) continue;
      const what = /^http:/i.test(entry.url)
        ? 'a plain http:// URL on this machine'
        : 'not on a public host (this machine, or a private network)';
      found.push(
        `${where}: ${kind}.${name}.url is ${what}, which a deployed function cannot reach: put the ${kind === 'actions' ? "action's" : "trigger's"} https invoke URL there.`,
      );
    }
  }
  return found;
}

/**
 * Every problem of one document of a stage's secret (`text`, or undefined when there is none):
 * `where` names it (a file, a secret id), `capabilities` are what it holds.
 */
export function documentProblems(
  text: string | undefined,
  where: string,
  capabilities: readonly SecretCapability[],
  stage: SecretStage,
): string[] {
  const needed = neededCapabilities(stage).filter((capability) =>
    capabilities.includes(capability),
  );
  if (text === undefined) {
    return needed.map((capability) =>
      missingCapability(capability, `${where} is missing`, 'write {} in it'),
    );
  }
  let secret: PlatformSecret;
  try {
    secret = parseSecret(text, where, {
      fields: capabilities.flatMap((capability) => CAPABILITY_FIELDS[capability]),
      deployed: true,
    });
  } catch (error) {
    // The message names the fields, never a value (lib/secrets/store.ts).
    return [`${(error as Error).message}: correct the field(s) named (docs/secret.md).`];
  }
  return stageRuleProblems(secret, where, stage);
}
