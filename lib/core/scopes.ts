/**
 * The callers' scope vocabulary: what a scope names, whether a caller's scopes grant a route's
 * scope, and a route's scope built from its path (`actions:{name}` -> `actions:echo`). The
 * secret's schema, the route registry, the middy stack and the deployed JWT authorizer's
 * `authorizationScopes` all read it here, so that a scope has one spelling.
 *
 * | scope | allows |
 * | `jobs:read` | `GET /jobs`, `POST /jobs/search`, `GET /jobs/{id}/report` |
 * | `jobs:cancel` | `PATCH /jobs/{id}/cancel`, `POST /jobs/cancel-reserved` |
 * | `jobs:stop` | `PATCH /jobs/{id}/stop` |
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
  | 'jobs:stop'
  | 'actions:{name}'
  | 'triggers:{name}'
  | `catalogue:${CatalogueApi}`;

/** Everything. */
export const ALL_SCOPES = '*';

const NAME = '[A-Za-z0-9_.-]{1,128}';
const SCOPE = new RegExp(
  `^(\\*|jobs:(read|cancel|stop)|(actions|triggers):(\\*|${NAME})|catalogue:(\\*|${CATALOGUE_APIS.join('|')}))$`,
);

/** Whether a text is a scope of the vocabulary. */
export function isScope(text: string): boolean {
  return SCOPE.test(text);
}

/** A route's scope for one request: `actions:{name}` with the path's name filled in. */
export function scopeFor(template: ScopeTemplate, pathName: string | undefined): string {
  return template.endsWith(':{name}') ? template.replace('{name}', pathName ?? '') : template;
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
