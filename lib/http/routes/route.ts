/**
 * The shape of one route of the registry: everything the service declares about it, as data.
 * Its handler is bound to its entry (`bind(jobRoutes.<key>, ...)`, lib/http/bind.ts), which
 * reads from it what the stack needs. The serverless `httpApi` events (sls/resolvers/routes.ts),
 * the OpenAPI document (lib/http/openapi.ts) and the docs' tables (scripts/docs.ts) are read from
 * the registry too, so that a route is declared once.
 */
import type { Schema } from '../../core/schemas.ts';
import type { ScopeTemplate } from '../../core/scopes.ts';
import type { CheckedExecution } from '../../execution/request.ts';
import type { ExecutionKind } from '../../execution/targets.ts';
import type { Units } from '../../usage/units.ts';

export type JsonSchema = Record<string, unknown>;

type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

/**
 * A body taken as bytes: the handler reads them as received (`request.bytes`). Who checks them:
 * the stack (`stack`: one of the media types, and not empty when required; a 400 before the
 * handler runs), the handler itself (`handler`: a webhook verifies its signature over them
 * first), or the action or trigger the path names (`{ target }`: the stack finds it, then
 * checks the method and the body against it, before admission; the handler gets the checked
 * execution as `request.body`).
 */
interface BytesInput {
  /** The media types the body may have. */
  readonly contentTypes: readonly string[];
  /** Whether a body must be sent. */
  readonly required: boolean;
  readonly checkedBy: 'stack' | 'handler' | { readonly target: ExecutionKind };
  /** What the bytes are, for the document; absent, bytes (`format: binary`). */
  readonly schema?: JsonSchema;
  readonly description?: string;
}

/**
 * A route's input, in one vocabulary: `body` is a JSON body, parsed once and validated (the
 * handler's `request.body`); `bytes` is a body taken as bytes (`request.bytes`); `query` and
 * `path` are validated (`request.query`, `request.path`). Every handler may read `request.bytes`.
 */
interface RouteInput<B, Q, P> {
  /** A JSON body (Content-Type application/json) validated by this schema. */
  readonly body?: Schema<B>;
  /** A body taken as bytes; ignored when `body` is set. */
  readonly bytes?: BytesInput;
  readonly query?: Schema<Q>;
  readonly path?: Schema<P>;
  /** Request headers the route reads (lower-case names), for the document. */
  readonly headers?: Schema<unknown>;
}

export type RouteAccess = { readonly scope: ScopeTemplate } | 'caller' | 'public';

/**
 * A route's access as a stage serves it: a reference route (`reference: true`, GET /docs and GET
 * /openapi.json) is public unless the stage turns its public reference off (PUBLIC_REFERENCE=false,
 * from the stage parameter publicReference), and then needs any known caller.
 */
export function accessOf(
  route: Pick<Route, 'access' | 'reference'>,
  publicReference: boolean,
): RouteAccess {
  return route.reference && !publicReference ? 'caller' : route.access;
}

/**
 * Whether the route needs a known caller (a bearer token, or a JWT when deployed with one), as
 * a stage with its public reference on (the default) serves it, unless told otherwise.
 */
export function needsCaller(
  route: Pick<Route, 'access' | 'reference'>,
  publicReference = true,
): boolean {
  return accessOf(route, publicReference) !== 'public';
}

export interface Route<B = unknown, Q = unknown, P = unknown> {
  /**
   * The Lambda function that serves it (sls/functions.ts): its key in its area's module, unless
   * it is one of several routes a function serves. Its log lines and its hand-offs name it.
   */
  readonly function: string;
  readonly method: RouteMethod;
  /** API Gateway path template, `{name}` for a path parameter. */
  readonly path: string;
  /**
   * Who may call it: a caller holding a scope (`{ scope: 'jobs:read' }`, or one built from the
   * path, `actions:{name}`), any known caller (`caller`), or anyone (`public`: health; a webhook
   * authenticates by its signature instead), or the reference's rule (`reference`: the docs page
   * and the OpenAPI document, public unless the stage says otherwise; see accessOf). The middy
   * stack checks it before anything is parsed or sent, and a deployed JWT authorizer is given it.
   */
  readonly access: RouteAccess;
  /**
   * The service's own reference (the docs page, the OpenAPI document): its `access` is public,
   * and a stage may turn that off (accessOf), when any known caller may call it instead.
   */
  readonly reference?: true;
  /** Unique operation id, its key in its area's module; also the name in log lines. */
  readonly id: string;
  readonly summary: string;
  readonly tag: string;
  readonly input?: RouteInput<B, Q, P>;
  /**
   * What a request spends of its caller's usage plans (lib/usage/units.ts): a route that
   * reaches the platform is admitted against them after validation, before anything is sent.
   * `per-call`: bulk work, whose handler takes a unit for every call it sends (a usage meter,
   * lib/usage/bulk-meter.ts). Absent: the route reaches nothing of the platform (health, the
   * document, usage) and spends nothing.
   */
  readonly spends?: ((input: { readonly body: unknown }) => Units) | 'per-call';
  /**
   * The route passes its answer through, which may be larger than a Lambda function can return
   * (a report, speech, an image, an action's answer): such a success answer is handed off
   * (lib/http/hand-off.ts), stored in the stage's bucket as it arrives, and the caller sent there
   * with 303 See Other. Its function binds it with its hand-off (`bind(..., { handOff })`).
   */
  readonly handsOff?: true;
}

// biome-ignore lint/suspicious/noExplicitAny: a route of any input types
type AnyRoute = Route<any, any, any>;

/** API Gateway's route key of a route: `GET /jobs`, `ANY /actions/{name}`. */
export function routeKeyOf(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** What an entry says before its area names it: its `id` and `function` may wait for its key. */
type RouteSpec = Omit<AnyRoute, 'id' | 'function'> & {
  readonly id?: string;
  readonly function?: string;
};

/** Who checks a route's bytes, as its type says (never: it takes none). */
type CheckedByOf<R> = R extends { readonly input?: infer I }
  ? NonNullable<I> extends { readonly bytes?: infer B }
    ? NonNullable<B> extends { readonly checkedBy: infer C }
      ? C
      : never
    : never
  : never;

/**
 * The handler's `request.body`: what its JSON body's schema gives, the execution checked against
 * its target (an action's or a trigger's bytes), or nothing.
 */
type BodyOf<S> = S extends { readonly input: { readonly body: Schema<infer B> } }
  ? B
  : [CheckedByOf<S>] extends [{ readonly target: ExecutionKind }]
    ? CheckedExecution
    : undefined;
type QueryOf<S> = S extends { readonly input: { readonly query: Schema<infer Q> } }
  ? Q
  : Record<string, never>;
type PathOf<S> = S extends { readonly input: { readonly path: Schema<infer P> } }
  ? P
  : Record<string, never>;

/**
 * An entry, as written: its type keeps what it says (its access, what it spends, whether it
 * hands off, who checks its bytes), so that binding it asks for what it needs (bind.ts), and
 * its handler's input types follow from its schemas. In an area's module, its `id`, and its
 * `function` unless it says whose, are its key there (`routesOf`), so that a function's name is
 * written once; a route made anywhere else (a test's) says both.
 */
export function defineRoute<const S extends RouteSpec>(
  route: S,
): S & Route<BodyOf<S>, QueryOf<S>, PathOf<S>> {
  return route as S & Route<BodyOf<S>, QueryOf<S>, PathOf<S>>;
}

/**
 * An area's routes by their keys: each route's `id` is its key, and so is its `function`, the
 * function of its own it is served by, unless the route names another (a function of several
 * routes).
 */
export function routesOf<T extends Record<string, AnyRoute>>(routes: T): T {
  const named: Record<string, AnyRoute> = {};
  for (const [key, route] of Object.entries(routes)) {
    named[key] = { ...route, id: key, function: route.function ?? key };
  }
  return named as T;
}
