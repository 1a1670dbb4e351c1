'use strict';
// Which secret holds what, as variable resolvers for serverless.yml:
// `${file(./sls/resolvers/secrets.cjs):environment.SECRET_ID}`. What the document holds is split
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
const { lib } = require('../lib.cjs');
const { setting } = require('./deploy-env.cjs');

/** The capabilities, and the setting that names a capability's own secret: the code's. */
const { SECRET_CAPABILITIES: CAPABILITIES, secretIdSetting: settingOf } = lib('secretCapabilities');

/** The secret id of each capability, and the single secret's. */
async function layoutOf(resolveVariable) {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const layout = String((await resolveVariable('param:secretLayout')) ?? 'split').trim();
  if (layout !== 'split' && layout !== 'single') {
    throw new Error(`The secretLayout parameter must be split or single, not "${layout}".`);
  }
  const single = setting('SECRET_ID') || `${service}/${stage}/platform`;
  const ids = {};
  for (const capability of CAPABILITIES) {
    ids[capability] =
      setting(settingOf(capability)) ||
      (layout === 'split' ? `${service}/${stage}/${capability}` : single);
  }
  return { single, ids };
}

/**
 * The functions' environment: SECRET_ID while some capability is kept in it, and each
 * capability's own secret. Locally (serverless offline, invoke local) the file source serves,
 * and only what the shell set passes through.
 */
const environment = async ({ resolveVariable }) => {
  const local = String(await resolveVariable('self:custom.isLocal')) === 'true';
  const env = {};
  if (local) {
    env.SECRET_ID = setting('SECRET_ID');
    for (const capability of CAPABILITIES)
      env[settingOf(capability)] = setting(settingOf(capability));
    return env;
  }
  const { single, ids } = await layoutOf(resolveVariable);
  env.SECRET_ID = Object.values(ids).includes(single) ? single : '';
  for (const capability of CAPABILITIES) {
    env[settingOf(capability)] = ids[capability] === single ? '' : ids[capability];
  }
  return env;
};

module.exports = { CAPABILITIES, settingOf, layoutOf, environment };
