/**
 * The shape of one entry of the function table (sls/functions.ts): what starts a function, its
 * handler, what it reads and may do, its limits; and the function as the deploy and the tests
 * read it, with what follows from its routes (its name, whether it hands off, whether it serves
 * the reference) and the defaults filled in. Read when the package is built and by the tests.
 */
import type { SecretCapability } from '../lib/core/secret-capabilities.ts';
import type { Route } from '../lib/http/routes/route.ts';

/**
 * What a role may do besides writing its own logs and reading its secrets: each a policy of
 * sls/resolvers/iam.ts (PERMISSIONS), which says what it allows and on what.
 */
export type Permission =
  /** The usage plans' counters of the callers and the account (an admission). */
  | 'keepUsage'
  /** A caller's lease of cancel-reserved, taken and given up. */
  | 'holdLeases'
  /** The usage items, read only (GET /usage). */
  | 'readUsage'
  /** The invocation queue, and the body bucket for params too large for a message. */
  | 'sendInvocations'
  /** The invocation queue as its event source, its dead-letter queue, the bodies. */
  | 'consumeInvocations'
  /** The delivery ledger's records. */
  | 'claimDeliveries'
  /** The account's usage shards, counted and never held. */
  | 'countAccountUsage'
  /** The watcher's state table. */
  | 'keepWatcherState'
  /** The stage's event bus, only when it names one (EVENT_BUS_NAME). */
  | 'publishScanJobChanges';

/**
 * The module of a function's handler (`functions/...ts`), or one per kind of stage: deployed
 * and local (a local run has no queue), or by the stage's reference (public by default, for
 * known callers where the stage turns that off).
 */
type HandlerModule =
  | string
  | { readonly deployed: string; readonly local: string }
  | { readonly publicReference: string; readonly forCallers: string };

/** A stage parameter of serverless.yml (`params`), by name. */
type StageParam = string;

/** What starts a function. */
type Trigger =
  /** Routes of the registry, each an `httpApi` event (with its JWT scopes where a stage asks). */
  | { readonly routes: readonly Route[] }
  /** API Gateway's `$default` route: any path or method no route has. */
  | { readonly catchAll: Route }
  /** An SQS queue of the stack (its logical id), a batch at a time. */
  | {
      readonly queue: string;
      readonly batchSize: number;
      /** Only the messages it lists as failed come back (ReportBatchItemFailures). */
      readonly reportsBatchItemFailures: boolean;
    }
  /** An EventBridge schedule. */
  | { readonly schedule: string; readonly description: string };

export interface FunctionSpec {
  /** Only a function no route calls: the name its handler's wiring gives it (its metrics, its log). */
  readonly name?: string;
  readonly handler: HandlerModule;
  readonly trigger: Trigger;
  readonly description?: string;
  /** The parts of the secret it reads (lib/core/secret-capabilities.ts). */
  readonly reads?: readonly SecretCapability[];
  /** What else its role may do. */
  readonly may?: readonly Permission[];
  /** Seconds. */
  readonly timeout?: number;
  /** MB. */
  readonly memory?: number;
  /**
   * At most this many at once, from a stage parameter: `reserved`, Lambda's reserved
   * concurrency (kept for it too; none where the stage reserves none); `eventSourceMax`, its
   * queue's event source maximum.
   */
  readonly concurrency?:
    | { readonly reserved: StageParam }
    | { readonly eventSourceMax: StageParam };
  /** Its variables besides provider.environment's, as serverless.yml resolves them. */
  readonly environment?: Readonly<Record<string, string>>;
  /** The throttle its routes share when anyone may call them: the webhook senders' budget. */
  readonly throttle?: 'webhook';
}

/** A function of the table, as the deploy and the tests read it. */
export interface LambdaFunction extends FunctionSpec {
  readonly name: string;
  readonly timeout: number;
  readonly memory: number;
  readonly reads: readonly SecretCapability[];
  readonly may: readonly Permission[];
  /** Its routes (none for a function no route calls; the catch-all's own for the catch-all). */
  readonly routes: readonly Route[];
  /** Its routes pass answers through, which may be handed off (a route's `handsOff`). */
  readonly handsOff: boolean;
  /** It serves the reference (GET /docs, GET /openapi.json), public unless the stage says not. */
  readonly reference: boolean;
}

/**
 * An HTTP function gives API Gateway its answer within the integration's 30 s; the upstream
 * deadline (UPSTREAM_TIMEOUT_MS, 8,000 by default) stays well inside this, so that the function
 * can still answer with the 504 envelope.
 */
const HTTP_TIMEOUT_SECONDS = 10;
const MEMORY_MB = 256;

/** `${param:name}`: a stage parameter. */
export const param = (name: StageParam) => `\${param:${name}}`;
/** `${self:custom.<name>.<isLocal>}`: a value of serverless.yml's custom, locally or deployed. */
export const localOrDeployed = (name: string, fallback?: string) =>
  `\${self:custom.${name}.\${self:custom.isLocal}${fallback === undefined ? '' : `, ${fallback}`}}`;
/** `${self:custom.<name>}`: a value of serverless.yml's custom. */
export const custom = (name: string) => `\${self:custom.${name}}`;
/** `${env:NAME, ''}`: a variable of the shell that runs serverless, empty when unset. */
export const shell = (name: string) => `\${env:${name}, ''}`;

/** The routes that start a function, the catch-all's own included. */
function routesStarting(trigger: Trigger): readonly Route[] {
  if ('routes' in trigger) return trigger.routes;
  return 'catchAll' in trigger ? [trigger.catchAll] : [];
}

/** A function's name: its routes', or, for one no route calls, the one its entry takes. */
function nameOf(spec: FunctionSpec): string {
  const names = new Set(routesStarting(spec.trigger).map((route) => route.function));
  if (spec.name !== undefined) names.add(spec.name);
  const [name, ...others] = names;
  if (name === undefined || others.length > 0) {
    throw new Error(`A function has one name, not ${[...names].join(', ') || 'none'}`);
  }
  return name;
}

/** A function of the table from its entry: its name, defaults and what its routes say. */
export function functionOf(spec: FunctionSpec): LambdaFunction {
  const routes = routesStarting(spec.trigger);
  return {
    ...spec,
    name: nameOf(spec),
    timeout: spec.timeout ?? HTTP_TIMEOUT_SECONDS,
    memory: spec.memory ?? MEMORY_MB,
    reads: spec.reads ?? [],
    may: spec.may ?? [],
    routes,
    handsOff: routes.some((route) => route.handsOff),
    reference: routes.some((route) => route.reference),
  };
}

/** The handler module a local run loads (`npm start`; the public reference's). */
export function localHandlerOf(fn: Pick<LambdaFunction, 'handler'>): string {
  const { handler } = fn;
  if (typeof handler === 'string') return handler;
  return 'local' in handler ? handler.local : handler.publicReference;
}

/** Every handler module a function may load, by the kind of stage. */
export function handlerModulesOf(fn: Pick<LambdaFunction, 'handler'>): string[] {
  return typeof fn.handler === 'string' ? [fn.handler] : Object.values(fn.handler);
}
