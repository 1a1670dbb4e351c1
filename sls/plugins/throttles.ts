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
import { routes } from '../../lib/http/routes/index.ts';
import { FUNCTIONS } from '../functions.ts';
import { at, type Custom, type Resources } from '../serverless.ts';
import { templateStep } from './template-step.ts';

/** The two budgets: the webhook senders', and the others anyone may call. */
const BUDGETS = ['webhook', 'public'] as const;
/** The route keys ("GET /health") of each budget. */
type RouteKeys = Record<(typeof BUDGETS)[number], string[]>;

const STAGE = 'AWS::ApiGatewayV2::Stage';
const ROUTE = 'AWS::ApiGatewayV2::Route';

/**
 * The route keys anyone may call, by the budget they share: `webhook` (the routes of a function
 * whose entry in the function table, sls/functions.ts, says so) or `public`.
 */
export function publicRouteKeys(): RouteKeys {
  const webhook = new Set(
    Object.values(FUNCTIONS)
      .filter((fn) => fn.throttle === 'webhook')
      .map((fn) => fn.name),
  );
  const keys: RouteKeys = { webhook: [], public: ['$default'] };
  for (const route of routes) {
    if (route.access !== 'public' && !route.reference) continue;
    const key = `${route.method} ${route.path}`;
    (webhook.has(route.function) ? keys.webhook : keys.public).push(key);
  }
  return keys;
}

/** A throttle's rate and burst, from its params; throws naming the one CloudFormation refuses. */
function throttleOf(
  name: string,
  rate: unknown,
  burst: unknown,
): { ThrottlingRateLimit: number; ThrottlingBurstLimit: number } {
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
export function applyThrottles(
  resources: Resources,
  settings: NonNullable<Custom['publicThrottles']>,
  keys: RouteKeys = publicRouteKeys(),
): void {
  const stage = Object.values(resources).find((resource) => resource.Type === STAGE);
  if (!stage) return;
  const routeIds = new Map(
    Object.entries(resources)
      .filter(([, resource]) => resource.Type === ROUTE)
      .map(([id, resource]) => [at(resource, 'Properties', 'RouteKey'), id]),
  );
  const existing = at(stage, 'Properties', 'RouteSettings');
  const routeSettings: Record<string, unknown> =
    typeof existing === 'object' && existing !== null ? { ...existing } : {};
  const dependsOn = new Set([stage.DependsOn ?? []].flat());
  for (const budget of BUDGETS) {
    const throttle = throttleOf(budget, settings[budget]?.rate, settings[budget]?.burst);
    for (const key of keys[budget]) {
      const routeId = routeIds.get(key);
      if (!routeId) continue;
      routeSettings[key] = { DetailedMetricsEnabled: false, ...throttle };
      dependsOn.add(routeId);
    }
  }
  stage.Properties ??= {};
  stage.Properties.RouteSettings = routeSettings;
  stage.DependsOn = [...dependsOn];
}

export default templateStep((custom) => custom.publicThrottles ?? {}, applyThrottles);
