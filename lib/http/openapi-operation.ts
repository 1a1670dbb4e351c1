/**
 * One operation of the OpenAPI document (lib/http/openapi.ts): a route of the registry at one of
 * its methods, its parameters, body and responses from the zod schemas that validate its input
 * and the route's docs (lib/http/routes/docs/), and who may call it.
 */
import * as z from 'zod/mini';
import { documentationOf, type Schema } from '../core/schemas.ts';
import { scopesGranting } from '../core/scopes.ts';
import type { RouteDocs } from './routes/docs/route-docs.ts';
import { type JsonSchema, needsCaller, type Route } from './routes/route.ts';

/** The JSON Schema of what a caller sends (the input side of transforms and defaults). */
export function jsonSchemaOf(schema: Schema): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      Object.assign(jsonSchema, documentationOf(zodSchema));
    },
  }) as JsonSchema;
  return rest;
}

function propertiesOf(schema: Schema | undefined): {
  properties: Record<string, JsonSchema>;
  required: Set<string>;
} {
  if (!schema) return { properties: {}, required: new Set() };
  const json = jsonSchemaOf(schema);
  return {
    properties: (json.properties ?? {}) as Record<string, JsonSchema>,
    required: new Set((json.required ?? []) as string[]),
  };
}

/** A parameter's schema: the text pattern of an integer is the parser's business, not the caller's. */
function parameterSchema(schema: JsonSchema): JsonSchema {
  if (schema.type !== 'integer') return schema;
  const { pattern: _text, ...integer } = schema;
  return integer;
}

function parametersOf(route: Route) {
  const input = route.input;
  const pathProps = propertiesOf(input?.path);
  const pathParams = [...route.path.matchAll(/\{([^}+]+)\+?\}/g)].map(([, name = '']) => ({
    name,
    in: 'path',
    required: true,
    schema: parameterSchema(pathProps.properties[name] ?? { type: 'string' }),
  }));
  const query = propertiesOf(input?.query);
  const queryParams = Object.entries(query.properties).map(([name, schema]) => {
    const repeatable = Array.isArray(schema.anyOf) && JSON.stringify(schema).includes('"array"');
    return {
      name,
      in: 'query',
      required: query.required.has(name),
      schema: repeatable ? { type: 'array', items: arrayItems(schema) } : parameterSchema(schema),
      ...(repeatable ? { style: 'form', explode: true } : {}),
    };
  });
  const headers = propertiesOf(input?.headers);
  const headerParams = Object.entries(headers.properties).map(([name, schema]) => ({
    name,
    in: 'header',
    required: headers.required.has(name),
    schema,
  }));
  return [...pathParams, ...queryParams, ...headerParams];
}

/** The item schema of a "one value or an array of them" parameter. */
function arrayItems(schema: JsonSchema): JsonSchema {
  const variants = schema.anyOf as JsonSchema[];
  return parameterSchema(
    variants.find((variant) => variant.type !== 'array') ?? { type: 'string' },
  );
}

function requestBodyOf(route: Route) {
  const input = route.input;
  if (input?.body) {
    return {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(input.body) } },
    };
  }
  const bytes = input?.bytes;
  if (bytes) {
    // Bytes, unless the route says what they are (a webhook's JSON object, an action's
    // parameters).
    return {
      required: bytes.required,
      ...(bytes.description ? { description: bytes.description } : {}),
      content: Object.fromEntries(
        bytes.contentTypes.map((type) => [
          type,
          { schema: bytes.schema ?? { type: 'string', format: 'binary' } },
        ]),
      ),
    };
  }
  return undefined;
}

function responsesOf(route: Route, documented: RouteDocs['responses']) {
  const responses: Record<string, unknown> = {};
  for (const response of documented) {
    const content = response.contentTypes
      ? Object.fromEntries(
          response.contentTypes.map((type) => [
            type,
            {
              schema: response.binary
                ? { type: 'string', format: 'binary' }
                : type.endsWith('json')
                  ? (response.schema ?? {})
                  : { type: 'string' },
            },
          ]),
        )
      : undefined;
    responses[String(response.status)] = { description: response.description, content };
  }
  // An answer too large for a Lambda response is handed off: 303 to where it is stored.
  if (route.handsOff) responses['303'] = { $ref: '#/components/responses/HandedOff' };
  // Where the endpoint's own answer comes back whatever its status (an action), a 400, 401 or
  // 403 may be either this service's envelope or the endpoint's own.
  const passesThrough = documented.some(
    (answer) => answer.status === 'default' && !answer.contentTypes,
  );
  const envelopeOr = (status: number, what: string) =>
    passesThrough
      ? {
          description: `${what}: the uniform envelope (see the Error response); or the endpoint's own ${status}, unchanged`,
        }
      : { $ref: '#/components/responses/Error' };
  responses['400'] ??= envelopeOr(400, 'Bad input');
  if (needsCaller(route)) responses['401'] ??= envelopeOr(401, 'No valid caller token');
  if (typeof route.access === 'object') {
    responses['403'] ??= envelopeOr(403, "The caller lacks the route's scope");
  }
  responses.default ??= { $ref: '#/components/responses/Error' };
  return responses;
}

/**
 * Who may call an operation, as OpenAPI 3.1 states roles for a bearer scheme: one requirement
 * per scope that grants it (any one will do): `jobs:read` or `*`; `actions:{name}` (the name of
 * the path), `actions:*` or `*`. Any known caller: the scheme with no role; public: none.
 */
function securityOf(route: Route): Record<string, string[]>[] {
  // Public by default, a known caller's where the stage says so: the token is optional.
  if (route.reference) return [{}, { callerToken: [] }];
  if (route.access === 'public') return [];
  if (route.access === 'caller') return [{ callerToken: [] }];
  return scopesGranting(route.access.scope).map((scope) => ({ callerToken: [scope] }));
}

function scopeNote(route: Route): string | undefined {
  if (route.access === 'public') return undefined;
  if (route.access === 'caller') return 'Any known caller may call it.';
  const [own, ...wider] = scopesGranting(route.access.scope);
  return `Needs the scope \`${own}\` (or ${wider.map((scope) => `\`${scope}\``).join(' or ')}).`;
}

/** The operation of a route at one of its methods (each method of an `ANY` route is one). */
export function operationOf(
  route: Route,
  method: string,
  docs: RouteDocs,
): Record<string, unknown> {
  const operation: Record<string, unknown> = {
    operationId:
      route.method === 'ANY'
        ? `${route.id}${method.charAt(0)}${method.slice(1).toLowerCase()}`
        : route.id,
    summary: route.summary,
    tags: [route.tag],
    security: securityOf(route),
    parameters: parametersOf(route),
    responses: responsesOf(route, docs.responses),
  };
  const description = [docs.description, scopeNote(route)].filter(Boolean).join(' ');
  if (description) operation.description = description;
  const requestBody = method === 'GET' || method === 'HEAD' ? undefined : requestBodyOf(route);
  if (requestBody) operation.requestBody = requestBody;
  return operation;
}
