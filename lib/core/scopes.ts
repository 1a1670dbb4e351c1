/**
 * The callers' scope vocabulary: what a scope names, whether a caller's scopes grant a route's
 * scope, and a route's scope built from its path (`actions:{name}` -> `actions:echo`). The
 * secret's schema, the route registry, the middy stack and the deployed JWT authorizer's
 * `authorizationScopes` all read it here, so that a scope has one spelling.
 *
 * | scope | allows |
 * | `jobs:read` | `GET /jobs`, `POST /jobs/search`, `GET /jobs/{id}/report` |
 * | `jobs:cancel` | `PATCH /jobs/{id}/cancel` |
 * | `jobs:cancel-reserved` | `POST /jobs/cancel-reserved` (one call may cancel every reserved job,
 * |   so `jobs:cancel` alone does not allow it) |
 * | `jobs:stop` | `PATCH /jobs/{id}/stop` |
 * | `usage:read` | `GET /usage?caller=<id>`: any caller's usage (every caller reads its own) |
 * | `actions:<name>`, `actions:*` | `ANY /actions/<name>` |
 * | `triggers:<name>`, `triggers:*` | `POST /triggers/<name>` |
 * | `catalogue:<api>`, `catalogue:*` | the catalogue routes of one API |
 * | `*` | everything |
 */

/** The catalogue's APIs, as scopes name them (`catalogue:maps`). */
export const CATALOGUE_APIS = [
  'translate',
  'tts',
  'stt',
  'maps',
  'captcha',
  'shorturl',
  'trends',
] as const;
export type CatalogueApi = (typeof CATALOGUE_APIS)[number];

/**
 * A route's scope as the registry declares it: fixed, or built from the path's `{name}` (the
 * action or trigger the route runs).
 */
export type ScopeTemplate =
  | 'jobs:read'
  | 'jobs:cancel'
  | 'jobs:cancel-reserved'
  | 'jobs:stop'
  | 'actions:{name}'
  | 'triggers:{name}'
  | `catalogue:${CatalogueApi}`;

/** Everything. */
export const ALL_SCOPES = '*';

/** Reading any caller's usage (`GET /usage?caller=<id>`); every caller may read its own. */
export const USAGE_READ_SCOPE = 'usage:read';

/** The scopes that name no action, trigger or API: each allows the routes of the table above. */
export const FIXED_SCOPES = [
  'jobs:read',
  'jobs:cancel',
  'jobs:cancel-reserved',
  'jobs:stop',
  USAGE_READ_SCOPE,
] as const;

const NAME = '[A-Za-z0-9_.-]{1,128}';
const SCOPE = new RegExp(
  `^(\\*|${FIXED_SCOPES.join('|')}|(actions|triggers):(\\*|${NAME})|catalogue:(\\*|${CATALOGUE_APIS.join('|')}))$`,
);

/** Whether a text is a scope of the vocabulary. */
export function isScope(text: string): boolean {
  return SCOPE.test(text);
}

const NAME_ONLY = new RegExp(`^${NAME}$`);

/** Whether a text is a name a path-built scope may carry (an action's, a trigger's). */
function isScopeName(text: string): boolean {
  return NAME_ONLY.test(text);
}

/**
 * The scope a request needs, from its validated path (`request.path`, never the raw event's
 * pathParameters): `actions:{name}` -> `actions:echo`. The path of a route whose scope is built
 * from it always holds a valid name once validated; without one, this throws (a route declared
 * with a `{name}` scope but no path schema).
 */
export function scopeOfRequest(
  template: ScopeTemplate,
  path: { readonly name?: unknown } | undefined,
): string {
  if (!template.endsWith(':{name}')) return template;
  const name = path?.name;
  if (typeof name !== 'string' || !isScopeName(name)) {
    throw new Error(`The scope ${template} needs a validated {name} in the request's path`);
  }
  return template.replace('{name}', name);
}

/** The areas whose scopes a wildcard grants (`actions:*`). */
const WILDCARD_AREAS = new Set(['actions', 'triggers', 'catalogue']);

/**
 * The scopes that grant `scope`, most specific first: itself, its area's wildcard where the
 * vocabulary has one (`actions:*`), and `*`. A route's template gives the wildcards that grant
 * every request of it (`actions:{name}` -> `actions:*`, `*`).
 */
export function scopesGranting(scope: string): string[] {
  const area = scope.slice(0, scope.indexOf(':'));
  const wildcard = WILDCARD_AREAS.has(area) ? `${area}:*` : undefined;
  return [scope, ...(wildcard && wildcard !== scope ? [wildcard] : []), ALL_SCOPES].filter(
    (granting, index, all) => all.indexOf(granting) === index,
  );
}

/**
 * Whether a caller holding `held` may call a route whose scope, for this request, is `scope`:
 * it holds one of `scopesGranting(scope)`. Asked on every request, so read without building
 * that list: the scope itself or `*` first, the area's wildcard only when neither is held.
 */
export function grants(held: readonly string[], scope: string): boolean {
  for (const owned of held) if (owned === scope || owned === ALL_SCOPES) return true;
  const area = scope.slice(0, scope.indexOf(':'));
  if (!WILDCARD_AREAS.has(area)) return false;
  return held.includes(`${area}:*`);
}
