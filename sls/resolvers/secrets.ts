// Which secret holds what, as variable resolvers for serverless.yml:
// `${file(./sls/variables.cjs):secrets.environment.SECRET_ID}`. What the document holds is split
// by what reads it (lib/core/config.ts names the same capabilities):
//   signing    iam, apiKey          the scan job functions and the watcher
//   catalogue  openapi              the catalogue functions
//   execution  actions, triggers    the action and trigger functions and the queue's consumer
//   webhooks   webhooks             the webhook receiver only
//   callers    callers, callerTokens, accountPlan  every function behind a caller token (none
//              with a JWT issuer)
// Every stage splits them by default (params: secretLayout split): each is a secret of its own,
// <service>/<stage>/<capability>, so that each function's role may read only what it uses
// (`npm run split-secret` writes the parts from one document). A stage may choose one secret on
// purpose (secretLayout single: SECRET_ID, by default <service>/<stage>/platform, holds them
// all). Any of them can be named by its own setting (SIGNING_SECRET_ID, ...), in either layout.
import {
  SECRET_CAPABILITIES,
  type SecretCapability,
  secretIdSetting,
} from '../../lib/core/secret-capabilities.ts';
import type { ResolverArgs, ResolveVariable } from '../serverless.ts';
import { setting } from './deploy-env.ts';

/** The capabilities, and the setting that names a capability's own secret: the code's. */
export { SECRET_CAPABILITIES as CAPABILITIES, secretIdSetting as settingOf };

/** The secret id of each capability, and the single secret's. */
export async function layoutOf(resolveVariable: ResolveVariable): Promise<{
  single: string;
  ids: Record<SecretCapability, string>;
}> {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const layout = String((await resolveVariable('param:secretLayout')) ?? 'split').trim();
  if (layout !== 'split' && layout !== 'single') {
    throw new Error(`The secretLayout parameter must be split or single, not "${layout}".`);
  }
  const single = setting('SECRET_ID') || `${service}/${stage}/platform`;
  const ids = Object.fromEntries(
    SECRET_CAPABILITIES.map((capability) => [
      capability,
      setting(secretIdSetting(capability)) ||
        (layout === 'split' ? `${service}/${stage}/${capability}` : single),
    ]),
  ) as Record<SecretCapability, string>;
  return { single, ids };
}

/**
 * The functions' environment: SECRET_ID while some capability is kept in it, and each
 * capability's own secret. Locally (serverless offline, invoke local) the file source serves,
 * and only what the shell set passes through.
 */
export const environment = async ({
  resolveVariable,
}: ResolverArgs): Promise<Record<string, string>> => {
  const local = String(await resolveVariable('self:custom.isLocal')) === 'true';
  const env: Record<string, string> = {};
  if (local) {
    env.SECRET_ID = setting('SECRET_ID');
    for (const capability of SECRET_CAPABILITIES)
      env[secretIdSetting(capability)] = setting(secretIdSetting(capability));
    return env;
  }
  const { single, ids } = await layoutOf(resolveVariable);
  env.SECRET_ID = Object.values(ids).includes(single) ? single : '';
  for (const capability of SECRET_CAPABILITIES) {
    env[secretIdSetting(capability)] = ids[capability] === single ? '' : ids[capability];
  }
  return env;
};
