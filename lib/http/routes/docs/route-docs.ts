/**
 * What a route documents beyond its entry: its description and responses (the OpenAPI
 * document), and its lines in the generated tables (`npm run docs`). Kept apart from the
 * registry, keyed by route id: only the OpenAPI document and the docs generator read them, so no
 * function's bundle carries their text.
 */
import type { JsonSchema, Route } from '../route.ts';

/** One success response of a route, as the document describes it. */
export interface RouteResponse {
  /** `default`: any other status (an endpoint's own answer, passed through). */
  readonly status: number | 'default';
  readonly description: string;
  /** Media types of its body; none for an answer whose type is the endpoint's own. */
  readonly contentTypes?: readonly string[];
  /** The body is bytes (images, audio). */
  readonly binary?: boolean;
  /** The JSON Schema of a JSON body, where the service knows it. */
  readonly schema?: JsonSchema;
}

export interface RouteDocs {
  readonly description?: string;
  readonly responses: readonly RouteResponse[];
  /** What it calls upstream, or does, in a phrase: its cell in the README's route table. */
  readonly upstream?: string;
  /** What its scope cell in docs/callers.md says after the scope, in parentheses. */
  readonly accessNote?: string;
}

/** A JSON answer whose body is the platform's, unchanged. */
export const PLATFORM_JSON: RouteResponse = {
  status: 200,
  description: "The platform's answer, unchanged",
  contentTypes: ['application/json'],
  schema: { type: 'object' },
};

/** An area's docs by route id: each route's own, over what every route of the area has. */
export function areaDocs<T extends Record<string, Route>>(
  routes: T,
  byDefault: (route: T[keyof T]) => RouteDocs,
  own: { readonly [K in keyof T]?: Partial<RouteDocs> },
): Record<string, RouteDocs> {
  return Object.fromEntries(
    Object.entries(routes).map(([id, route]) => [
      id,
      { ...byDefault(route as T[keyof T]), ...own[id as keyof T] },
    ]),
  );
}
