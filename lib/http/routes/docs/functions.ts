/** The docs of the execution routes (actions, triggers) and of the webhook receiver. */
import type { functionRoutes } from '../functions.ts';
import type { RouteDocs, RouteResponse } from './route-docs.ts';

/** An endpoint's answer comes back unchanged, whatever its status and type. */
const endpointResponse = (what: string): RouteResponse => ({
  status: 'default',
  description: `${what}, unchanged (status, Content-Type, body); only an error of the platform's gateway becomes the uniform envelope`,
});

export const functionDocs: { readonly [K in keyof typeof functionRoutes]: RouteDocs } = {
  invokeAction: {
    upstream: "the action's URL from the secret, `blocking=true&result=` added to its query",
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
  },
  fireTrigger: {
    upstream: "the trigger's URL, likewise",
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
  },
  receiveWebhook: {
    upstream:
      'a Standard Webhooks delivery: verified, answered 202, its action run once or parked with the reason ([docs](docs/webhooks-and-events.md#a-202-is-a-promise))',
    accessNote: 'its Standard Webhooks signature authenticates it',
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
  },
};
