import { type AnswerSizes, sizedJson, sizedRoute } from '../core/answer-sizes.ts';
import { CONTROL_PREFIX, type ControlRoute } from '../core/control-api.ts';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { EmulatorCredentials } from '../credentials.ts';
import type { ApiModule, ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import {
  type ActivationContext,
  type ActivationLog,
  newActivationId,
  startActivation,
  waitForRecord,
} from './activations.ts';
import { apiKeyAuthenticator, openAccess } from './api-key-auth.ts';
import { DEMO_API_ID, DEMO_STAGE, demoActions, demoTriggers } from './demo-actions.ts';
import { MAX_BLOCKING_WAIT_MS, parseInvokeOptions, parseJsonParams } from './invoke-request.ts';
import { copyJson } from './json-values.ts';
import type { ActionDefinition, TriggerDefinition } from './types.ts';
import { WEB_METHODS, webActionParams, webResponseOf } from './web.ts';
import {
  accepted,
  completed,
  WHISK_MESSAGES,
  whiskError,
  withActivationId,
} from './whisk-responses.ts';

const ACTIVATIONS_CONTROL_PATH = `${CONTROL_PREFIX}/activations`;

/**
 * How many path segments below a web action's resource reach it as `__ow_path` (the gateway's
 * `{type+}` resource); the router matches one segment per parameter, so depth is bounded.
 */
const MAX_WEB_SUBPATH_DEPTH = 4;

export interface ActionModuleOptions {
  readonly log: ActivationLog;
  /** The emulator's clock, for activation start and end times. */
  readonly now: () => number;
  /** x-<vendor>-apigw-api-key, for the resources that require a key. */
  readonly apiKeyHeader: string;
  readonly credentials: EmulatorCredentials;
  readonly apiId?: string;
  readonly stage?: string;
  readonly actions?: readonly ActionDefinition[];
  readonly triggers?: readonly TriggerDefinition[];
  /** The sizes a test asks of answers: an action's (JSON). */
  readonly sizes?: AnswerSizes;
}

/** An action's JSON answer of a size a test asks (core/answer-sizes.ts). */
function sizedActionAnswer(body: Buffer, bytes: number, contentType: string): Buffer | undefined {
  return contentType.startsWith('application/json') ? sizedJson(body, bytes) : undefined;
}

/** The gateway path of a resource: /<api id>/<stage>/<resource>. */
function resourcePathOf(apiId: string, stage: string, resource: string): string {
  return `/${apiId}/${stage}/${resource}`;
}

/** An ordinary action, as the gateway's webhook-type resource runs it (POST only). */
async function invokeAction(
  context: ActivationContext,
  action: ActionDefinition,
  request: GatewayRequest,
): Promise<GatewayResponse> {
  const options = parseInvokeOptions(request.query);
  if (!options.ok) return whiskError(options.status, options.message);
  const params = parseJsonParams(request);
  if (!params.ok) return whiskError(params.status, params.message);

  const running = startActivation(context, action, params.value, { method: request.method });
  if (!options.value.blocking) return accepted(running.activationId);
  const record = await waitForRecord(running, options.value.timeoutMs);
  return record ? completed(record, options.value.result) : accepted(running.activationId);
}

/** A web action, as the gateway's HTTP-type resource runs it: always waited for. */
async function invokeWebAction(
  context: ActivationContext,
  action: ActionDefinition,
  resourcePath: string,
  request: GatewayRequest,
): Promise<GatewayResponse> {
  const params = webActionParams(request, resourcePath);
  if (!params.ok) return whiskError(params.status, params.message);

  const running = startActivation(context, action, params.value, { method: request.method });
  const record = await waitForRecord(running, MAX_BLOCKING_WAIT_MS);
  if (!record) {
    return withActivationId(whiskError(202, WHISK_MESSAGES.responseNotReady), running.activationId);
  }
  return withActivationId(webResponseOf(record), record.activationId);
}

/**
 * Fires a trigger: 204 when no active rule would run anything (no activation is recorded),
 * else 202 {"activationId"} of the trigger's activation, each active rule's action running in
 * the background. `blocking` and `result` do not apply to triggers.
 */
function fireTrigger(
  context: ActivationContext,
  trigger: TriggerDefinition,
  actionsByName: ReadonlyMap<string, ActionDefinition>,
  request: GatewayRequest,
): GatewayResponse {
  const params = parseJsonParams(request);
  if (!params.ok) return whiskError(params.status, params.message);
  const activeRules = trigger.rules.filter((rule) => rule.active);
  if (activeRules.length === 0) return { status: 204, origin: 'ENDPOINT' };

  const activationId = newActivationId();
  context.log.add({
    activationId,
    kind: 'trigger',
    name: trigger.name,
    params: copyJson(params.value),
    method: request.method,
    at: context.now(),
  });
  for (const rule of activeRules) {
    const action = actionsByName.get(rule.action);
    if (action)
      startActivation(context, action, params.value, { method: 'POST', cause: activationId });
  }
  return accepted(activationId);
}

/** Route templates for a web action's resource and the sub-paths below it. */
function webPaths(resourcePath: string): string[] {
  return Array.from({ length: MAX_WEB_SUBPATH_DEPTH + 1 }, (_, depth) =>
    [resourcePath, ...Array.from({ length: depth }, (_, i) => `{segment${i + 1}}`)].join('/'),
  );
}

function actionRoutes(
  context: ActivationContext,
  action: ActionDefinition,
  resourcePath: string,
  authenticate: Authenticator,
): ApiRoute[] {
  if (!action.web) {
    return [
      {
        method: 'POST',
        path: resourcePath,
        authenticate,
        handle: ({ request }) => invokeAction(context, action, request),
      },
    ];
  }
  return WEB_METHODS.flatMap((method) =>
    webPaths(resourcePath).map((path) => ({
      method,
      path,
      authenticate,
      handle: ({ request }: { request: GatewayRequest }) =>
        invokeWebAction(context, action, resourcePath, request),
    })),
  );
}

function controlRoutes(log: ActivationLog): ControlRoute[] {
  return [
    {
      method: 'GET',
      path: ACTIVATIONS_CONTROL_PATH,
      handle: () => ({ status: 200, body: { activations: log.activations() } }),
    },
    {
      method: 'DELETE',
      path: ACTIVATIONS_CONTROL_PATH,
      handle: () => {
        log.reset();
        return { status: 204 };
      },
    },
  ];
}

/**
 * Function execution: actions and triggers behind
 * gateway URLs /<api id>/<stage>/<resource>. Only POST reaches an ordinary action or a
 * trigger; any other method is a method the gateway resource does not define, which the
 * gateway answers 404/300 before the function is involved.
 */
export function actionModule(options: ActionModuleOptions): ApiModule {
  const apiId = options.apiId ?? DEMO_API_ID;
  const stage = options.stage ?? DEMO_STAGE;
  const actions = options.actions ?? demoActions();
  const triggers = options.triggers ?? demoTriggers();
  const context: ActivationContext = { log: options.log, now: options.now };
  const keyed = apiKeyAuthenticator(options.apiKeyHeader, options.credentials);
  const authFor = (requiresApiKey: boolean) => (requiresApiKey ? keyed : openAccess);
  const actionsByName = new Map(actions.map((action) => [action.name, action]));

  const { sizes } = options;
  const routes: ApiRoute[] = [
    ...actions
      .flatMap((action) =>
        actionRoutes(
          context,
          action,
          resourcePathOf(apiId, stage, action.resource),
          authFor(action.requiresApiKey),
        ),
      )
      .map((route) => (sizes ? sizedRoute(route, sizes, 'action', sizedActionAnswer) : route)),
    ...triggers.map(
      (trigger): ApiRoute => ({
        method: 'POST',
        path: resourcePathOf(apiId, stage, trigger.resource),
        authenticate: authFor(trigger.requiresApiKey),
        handle: ({ request }) => fireTrigger(context, trigger, actionsByName, request),
      }),
    ),
  ];
  return {
    name: 'actions',
    routes,
    controlRoutes: controlRoutes(options.log),
    reset: () => options.log.reset(),
  };
}
