'use strict';
// The throttles of the public routes (a plugin, listed in serverless.yml): API Gateway counts
// requests with no token, or a bad one, against the same per-route budget as the callers', so a
// route anyone can reach gets a budget of its own, lower than the callers' routes', and a flood
// of it leaves theirs alone. Two of them, from the stage's params:
// - the webhook receiver (`webhookThrottleRatePerSecond`, `webhookThrottleBurst`): what the
//   senders need, retries included;
// - the others anyone may call (`publicThrottleRatePerSecond`, `publicThrottleBurst`): health,
//   the reference and its files (a browser loads six at once), and the catch-all ($default),
//   where an unknown path is answered 404.
// Set on the stage as RouteSettings, once the routes are in the template; the stage depends on
// each of them, since API Gateway refuses settings for a route it does not have yet.

const { lib } = require('../lib.cjs');

const table = lib('functions');
const registry = lib('routes');
const { templateStep } = require('./template-step.cjs');

const STAGE = 'AWS::ApiGatewayV2::Stage';
const ROUTE = 'AWS::ApiGatewayV2::Route';

/**
 * The route keys anyone may call, by the budget they share: `webhook` (the routes of a function
 * whose entry in the function table, sls/functions.ts, says so) or `public`.
 */
function publicRouteKeys() {
  const webhook = new Set(
    Object.values(table.FUNCTIONS)
      .filter((fn) => fn.throttle === 'webhook')
      .map((fn) => fn.name),
  );
  const keys = { webhook: [], public: ['$default'] };
  for (const route of registry.routes) {
    if (route.access !== 'public' && !route.reference) continue;
    const key = `${route.method} ${route.path}`;
    (webhook.has(route.function) ? keys.webhook : keys.public).push(key);
  }
  return keys;
}

/** A throttle's rate and burst, from its params; throws naming the one CloudFormation refuses. */
function throttleOf(name, rate, burst) {
  const rateLimit = Number(String(rate ?? '').trim());
  const burstLimit = Number(String(burst ?? '').trim());
  if (String(rate ?? '').trim() === '' || !(rateLimit >= 0)) {
    throw new Error(`The ${name}ThrottleRatePerSecond parameter must be a number of 0 or more.`);
  }
  if (String(burst ?? '').trim() === '' || !(Number.isInteger(burstLimit) && burstLimit >= 0)) {
    throw new Error(`The ${name}ThrottleBurst parameter must be a whole number of 0 or more.`);
  }
  return { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit };
}

/**
 * Sets the public routes' throttles on the stage: `settings` holds `webhook` and `public`, each
 * `{ rate, burst }`; `keys` the routes of each (publicRouteKeys, by default).
 */
function applyThrottles(resources, settings, keys = publicRouteKeys()) {
  const stage = Object.values(resources).find((resource) => resource.Type === STAGE);
  if (!stage) return;
  const routeIds = new Map(
    Object.entries(resources)
      .filter(([, resource]) => resource.Type === ROUTE)
      .map(([id, resource]) => [resource.Properties.RouteKey, id]),
  );
  const routeSettings = { ...stage.Properties.RouteSettings };
  const dependsOn = new Set([stage.DependsOn ?? []].flat());
  for (const budget of ['webhook', 'public']) {
    const throttle = throttleOf(budget, settings[budget]?.rate, settings[budget]?.burst);
    for (const key of keys[budget]) {
      const routeId = routeIds.get(key);
      if (!routeId) continue;
      routeSettings[key] = { DetailedMetricsEnabled: false, ...throttle };
      dependsOn.add(routeId);
    }
  }
  stage.Properties.RouteSettings = routeSettings;
  stage.DependsOn = [...dependsOn];
}

module.exports = templateStep('publicThrottles', applyThrottles);
module.exports.applyThrottles = applyThrottles;
module.exports.publicRouteKeys = publicRouteKeys;
