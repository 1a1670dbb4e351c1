/** Function execution: actions and triggers through their gateway URLs, and webhooks. */
import * as z from 'zod/mini';
import { namePathSchema } from '../../core/schemas.ts';
import { ONE_REQUEST } from '../../usage/units.ts';
import { defineRoute, routesOf } from './route.ts';

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

export const functionRoutes = routesOf({
  invokeAction: defineRoute({
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
  fireTrigger: defineRoute({
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
  receiveWebhook: defineRoute({
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
