/** Function execution: actions and triggers through their gateway URLs, and webhooks. */
import * as z from 'zod/mini';
import { type NamePath, namePathSchema } from '../../core/schemas.ts';
import type { CheckedExecution } from '../../execution/request.ts';
import { ONE_REQUEST } from '../../usage/units.ts';
import { defineRoute, document, type RouteResponse, routesOf } from './route.ts';

/**
 * `result` of an action or trigger route: `true` (the default) returns the action's result only.
 * Nothing else of the caller's query reaches the action: any other parameter is refused, named.
 */
export const executionQuerySchema = z.strictObject({
  result: z.pipe(
    z._default(z.enum(['true', 'false'], 'expected true or false'), 'true'),
    z.transform((value) => value === 'true'),
  ),
});
export type ExecutionQuery = z.infer<typeof executionQuerySchema>;

/** An endpoint's answer comes back unchanged, whatever its status and type. */
const endpointResponse = (what: string): RouteResponse => ({
  status: 'default',
  description: `${what}, unchanged (status, Content-Type, body); only an error of the platform's gateway becomes the uniform envelope`,
});

export const functionRoutes = routesOf({
  invokeAction: defineRoute<CheckedExecution, ExecutionQuery, NamePath>({
    // An action's answer is whatever it returns, of any size.
    handsOff: true,
    method: 'ANY',
    path: '/actions/{name}',
    access: { scope: 'actions:{name}' },
    spends: () => ONE_REQUEST,
    summary: 'Run an action (blocking); a web action keeps the method, others take POST only',
    tag: 'functions',
    input: {
      path: namePathSchema,
      query: executionQuerySchema,
      // Checked against the action before admission: a web action takes any JSON, or none;
      // others an object.
      bytes: {
        contentTypes: ['application/json'],
        required: false,
        checkedBy: { target: 'action' },
        schema: {},
        description:
          'The parameters: a JSON object, required unless the action is a web action (any JSON, or none)',
      },
    },
  }),
  fireTrigger: defineRoute<CheckedExecution, ExecutionQuery, NamePath>({
    handsOff: true,
    method: 'POST',
    path: '/triggers/{name}',
    access: { scope: 'triggers:{name}' },
    spends: () => ONE_REQUEST,
    summary: 'Fire a trigger with a JSON object of parameters',
    tag: 'functions',
    input: {
      path: namePathSchema,
      query: executionQuerySchema,
      bytes: {
        contentTypes: ['application/json'],
        required: true,
        checkedBy: { target: 'trigger' },
        schema: { type: 'object' },
        description: 'The parameters: a JSON object (an array or a bare value is a 400)',
      },
    },
  }),
  receiveWebhook: defineRoute<undefined, Record<string, never>, NamePath>({
    method: 'POST',
    path: '/webhooks/{name}',
    access: 'public',
    summary: 'Receive a Standard Webhooks delivery; its action runs once per webhook-id',
    tag: 'webhooks',
    input: {
      path: namePathSchema,
      // Verified over its bytes before anything parses them.
      bytes: {
        contentTypes: ['application/json'],
        required: true,
        checkedBy: 'handler',
        schema: { type: 'object' },
        description:
          'The delivery: a JSON object, handed to the action as its parameters. The signature ' +
          'covers its raw bytes, so it must arrive exactly as it was signed.',
      },
      headers: z.object({
        'webhook-id': z.string(),
        'webhook-timestamp': z.string().check(z.regex(/^[0-9]{1,12}$/)),
        'webhook-signature': z.string(),
      }),
    },
  }),
});

ROUTE_DOCS: {
  document(functionRoutes.invokeAction, {
    description:
      'A JSON object of parameters is the body of an ordinary action (required; POST only). A ' +
      'web action takes any JSON body, or none, with any of these methods: it receives the ' +
      "method and the body only (not the caller's query or headers). What the action answers " +
      "(status, Content-Type, body) comes back unchanged; only an error of the platform's " +
      'gateway becomes the uniform envelope.',
    responses: [
      {
        status: 200,
        description:
          "The action's answer: with result=true (the default) its result, else the activation record",
      },
      endpointResponse("The action's answer"),
    ],
  });
  document(functionRoutes.fireTrigger, {
    responses: [
      {
        status: 202,
        description: 'Fired: the activation id of the trigger',
        contentTypes: ['application/json'],
        schema: { type: 'object' },
      },
      { status: 204, description: 'Fired, with no rule to run' },
      endpointResponse("The platform's answer"),
    ],
  });
  document(functionRoutes.receiveWebhook, {
    description:
      'Authenticated by its signature (webhook-id, webhook-timestamp, webhook-signature, signed ' +
      'with the webhook secret; 5 minutes tolerance), not by a caller token. The body is read ' +
      'as raw bytes, verified, then handed to the queue.',
    responses: [
      {
        status: 202,
        description: 'Accepted: queued, to run once',
        contentTypes: ['application/json'],
        schema: {
          type: 'object',
          required: ['accepted', 'id'],
          properties: { accepted: { const: true }, id: { type: 'string' } },
          additionalProperties: false,
        },
      },
    ],
  });
}
