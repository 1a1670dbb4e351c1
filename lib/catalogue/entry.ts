/**
 * The shape of one catalogue entry: everything the service knows about one open API route,
 * as data. The functions, the routes, the OpenAPI document and the tests all read entries of
 * this shape (lib/catalogue/table.ts), so that adding an API is adding one entry.
 */
import type { UpstreamError } from '../core/errors.ts';
import type { Schema } from '../core/schemas.ts';
import type { CatalogueApi } from '../core/scopes.ts';
import type { UpstreamAnswer } from '../upstream/client.ts';
import type { Pairs } from '../upstream/urls.ts';

/**
 * How the input goes upstream: `query` (GET parameters), `form` (POST body,
 * application/x-www-form-urlencoded in UTF-8), `json` (POST body), `raw` (the caller's bytes
 * as application/octet-stream, parameters in the query).
 */
type SendsAs = 'query' | 'form' | 'json' | 'raw';

/** What the API answers on success. */
interface Answer {
  readonly kind: 'json' | 'json-or-xml' | 'binary';
  /** Content types the upstream may answer with (documentation and tests). */
  readonly contentTypes: readonly string[];
}

/** The validated input of one call. */
export interface CatalogueInput<B, Q, P> {
  /** The JSON body, validated. */
  readonly body: B;
  readonly query: Q;
  readonly path: P;
  /** The body's bytes as received (the `raw` sender's audio). */
  readonly bytes: Uint8Array;
}

/** What a route sends: the upstream path (when it varies) and the parameters or body. */
interface UpstreamPayload {
  /** Percent-encoded path; defaults to the entry's only upstream path. */
  readonly path?: string;
  /** Query parameters, or form fields when the entry sends a form. */
  readonly params?: Pairs;
  readonly json?: unknown;
  readonly raw?: Uint8Array;
}

export interface CatalogueEntry<B = unknown, Q = unknown, P = unknown> {
  /** Short stable name, used in logs and operation ids. */
  readonly id: string;
  /** The Lambda function that serves its group (`catalogueGroup`; sls/functions.ts). */
  readonly function: string;
  /** The API it belongs to: a caller needs the scope `catalogue:<api>` (or `catalogue:*`). */
  readonly api: CatalogueApi;
  /** The service's route (API Gateway path template). */
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly upstream: {
    readonly method: 'GET' | 'POST';
    /** Every upstream path template this route may call (`{Name}` for a variable part). */
    readonly paths: readonly [string, ...string[]];
  };
  readonly sends: SendsAs;
  readonly answers: Answer;
  /**
   * Whether the upstream call may be repeated after it may have reached the platform. False
   * for metered calls (translation, speech) and for single-use ones (CAPTCHA comparison).
   */
  readonly idempotent: boolean;
  readonly body?: Schema<B>;
  readonly query?: Schema<Q>;
  readonly pathParams?: Schema<P>;
  /** The media types of a body taken as bytes (the `raw` sender). */
  readonly bytes?: readonly string[];
  readonly toUpstream: (input: CatalogueInput<B, Q, P>) => UpstreamPayload;
  /** A failure the platform reports inside a 200 body, as the error to answer with. */
  readonly failureIn200?: (response: UpstreamAnswer) => UpstreamError | undefined;
  /** Decodes a non-2xx answer when the generic codec would miss the API's own code. */
  readonly decodeError?: (response: UpstreamAnswer) => UpstreamError;
}

/**
 * An entry with its input types checked, stored in the table with them erased. In a group's
 * module, its function is the group's (`catalogueGroup`); an entry made anywhere else (a test's)
 * says it.
 */
export function defineEntry<B = undefined, Q = Record<string, never>, P = Record<string, never>>(
  entry: Omit<CatalogueEntry<B, Q, P>, 'function'> & { readonly function?: string },
): CatalogueEntry {
  return entry as unknown as CatalogueEntry;
}

/**
 * A group's entries, served by one Lambda function: each takes its name, written once, here
 * (a route's `function`, lib/http/routes/catalogue.ts).
 */
export function catalogueGroup(
  functionName: string,
  entries: readonly CatalogueEntry[],
): CatalogueEntry[] {
  return entries.map((entry) => ({ ...entry, function: functionName }));
}
