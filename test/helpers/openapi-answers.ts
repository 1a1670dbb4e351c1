/**
 * Every answer the integration and end-to-end suites receive is checked against the OpenAPI
 * document: openapi-backend finds the operation of the request and validates a JSON body
 * against the answer's schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it); any other
 * body must have a media type that the documented answer declares.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { buildOpenApiDocument } from '../../lib/http/openapi.ts';

export interface ReceivedAnswer {
  readonly method: string;
  /** The request path, without the query. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The body as text (JSON answers are parsed here). */
  readonly body: string;
}

type AjvClass = typeof import('ajv').default;

interface DocumentApi {
  readonly backend: OpenAPIBackend;
  /** The document's operation for a request, as openapi-backend's matchOperation finds it. */
  readonly operationFor: (method: string, path: string) => Operation | undefined;
}

let backend: Promise<DocumentApi> | undefined;
let checked = 0;

/** How many answers this process has checked (a suite can assert that its answers were). */
export function checkedAnswerCount(): number {
  return checked;
}

function api(): Promise<DocumentApi> {
  backend ??= (async () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument()));
    const instance = new OpenAPIBackend({
      definition: document,
      // The document itself is checked by a validator of OpenAPI 3.1 (test/unit/lib/http/openapi.test.ts).
      quick: true,
      customizeAjv: (_ajv, options) =>
        new (Ajv2020 as unknown as AjvClass)({ ...options, strict: false }) as never,
    });
    await instance.init();
    return { backend: instance, operationFor: operationMatcher(instance.getOperations()) };
  })();
  return backend;
}

/**
 * openapi-backend's matching (an exact path with the method, else the path templates that match,
 * the most specific first, with the method), over the document's operations listed once:
 * its own matchOperation lists them again, and compiles each template, for every request.
 */
function operationMatcher(
  operations: readonly Operation[],
): (method: string, path: string) => Operation | undefined {
  const literal = (path: string) => path.replace(/\{.*?\}/g, '');
  const templates = operations
    .map((operation) => ({
      operation,
      pattern: new RegExp(`^${operation.path.replace(/\{.*?\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => literal(b.operation.path).length - literal(a.operation.path).length);
  return (method, requestPath) => {
    const wanted = method.trim().toLowerCase();
    // A leading slash added, then the API root's (`/`) taken off with one more slash after it.
    let path = `/${requestPath.trim()}`.replace(/^\/\/?\/?/, '/');
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const exact = operations.find((op) => op.path === path && op.method === wanted);
    if (exact) return exact;
    return templates.find(
      ({ operation, pattern }) => operation.method === wanted && pattern.test(path),
    )?.operation;
  };
}

const mediaTypeOf = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase();

interface DocumentedAnswer {
  readonly content?: Record<string, unknown>;
  readonly $ref?: string;
}

/** Throws, naming the operation and the reason, when the answer is not what the document says. */
export async function checkAnswerAgainstDocument(answer: ReceivedAnswer): Promise<void> {
  const { backend: backendApi, operationFor } = await api();
  checked += 1;
  const operation = operationFor(answer.method, answer.path);
  const where = `${answer.method} ${answer.path} -> ${answer.status} ${answer.contentType ?? ''}`;
  const document = (backendApi.document ?? backendApi.definition) as unknown as {
    components: { responses: { Error: DocumentedAnswer } };
  };
  const documented = operation
    ? ((operation.responses?.[String(answer.status)] ?? operation.responses?.default) as
        | DocumentedAnswer
        | undefined)
    : document.components.responses.Error;
  const resolved = documented?.$ref ? document.components.responses.Error : documented;
  if (!resolved) throw new Error(`${where}: status not documented`);
  // An endpoint's own answer, passed through: the document promises nothing of its body.
  if (!resolved.content) return;
  const mediaType = mediaTypeOf(answer.contentType);
  if (answer.body.length > 0) {
    const declared = Object.keys(resolved.content);
    if (!declared.includes(mediaType)) {
      throw new Error(`${where}: media type not documented (${declared.join(', ')})`);
    }
  }
  if (!mediaType.endsWith('json') || answer.body.length === 0) return;
  const body = JSON.parse(answer.body) as unknown;
  const result = operation
    ? backendApi.validateResponse(body, operation, answer.status)
    : backendApi.validateResponse(body, errorOperation(backendApi), 400);
  if (result.errors?.length) {
    throw new Error(`${where}: body does not match the document: ${JSON.stringify(result.errors)}`);
  }
}

/** Any operation, for its error answers: an unknown route's answer is the error envelope. */
function errorOperation(backendApi: OpenAPIBackend): Operation {
  return backendApi.getOperation('listJobs') as Operation;
}
