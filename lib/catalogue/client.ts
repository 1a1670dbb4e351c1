/**
 * Calls to the open API catalogue: builds the URL under
 * OPENAPI_BASE_URL, or under the host OPENAPI_SERVICE_URLS names for the path's first segment,
 * authenticates with the application's client id and secret, sends the input as the table
 * says (query, UTF-8 form, JSON or raw bytes), and turns failures into the error taxonomy:
 * error answers through the error codec, failures inside a 200 body through the entry's own
 * decoder.
 */

import type { CallContext } from '../core/call-context.ts';
import { requiredSetting } from '../core/deployed-settings.ts';
import { MisconfiguredError } from '../core/errors.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { credentialsFrom } from '../secrets/credentials.ts';
import type { SecretStore } from '../secrets/store.ts';
import { type UpstreamAnswer, type UpstreamClient, upstreamClientOf } from '../upstream/client.ts';
import { decodeUpstreamError } from '../upstream/error-decoding.ts';
import {
  type CredentialSource,
  sendRefreshingCredentials,
} from '../upstream/gateway/credential-refresh.ts';
import { gatewayHeaderNames } from '../upstream/gateway/header-names.ts';
import { encodePairs, type Pairs, type UpstreamTarget, upstreamUrl } from '../upstream/urls.ts';
import type { CatalogueEntry, CatalogueInput } from './entry.ts';

/** A header value of visible ASCII and spaces: what an Accept header is made of. */
const HEADER_VALUE = /^[\x20-\x7e]{1,1024}$/;

const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=UTF-8';
const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';
const RAW_CONTENT_TYPE = 'application/octet-stream';

interface CatalogueClientOptions {
  readonly baseUrl: URL;
  /** First path segment (`nmt`, `map-geocode`, ...) to the base URL that serves it. */
  readonly serviceUrls: ReadonlyMap<string, URL>;
  readonly vendor: string;
  readonly credentials: CredentialSource<AppCredentials>;
  readonly http: UpstreamClient;
}

/** What the caller sent that goes upstream besides the input: only Accept. */
interface CallerHeaders {
  readonly accept?: string | undefined;
}

interface WireRequest {
  readonly method: 'GET' | 'POST';
  readonly url: UpstreamTarget;
  readonly contentType?: string;
  readonly body?: string | Uint8Array;
  readonly idempotent: boolean;
  /** The platform service: the upstream path's first segment (nmt, map-geocode, ...). */
  readonly service: string;
}

export class CatalogueClient {
  private readonly names: ReturnType<typeof gatewayHeaderNames>;

  private readonly options: CatalogueClientOptions;

  constructor(options: CatalogueClientOptions) {
    this.options = options;
    this.names = gatewayHeaderNames(options.vendor);
  }

  /** The base URL that serves an upstream path (its first segment picks the service). */
  baseFor(path: string): URL {
    const service = path.split('/')[1] ?? '';
    return this.options.serviceUrls.get(service) ?? this.options.baseUrl;
  }

  /** The URL of an upstream path: the base URL's own path prefix is kept. */
  urlFor(path: string, query: Pairs = []): UpstreamTarget {
    return upstreamUrl(this.baseFor(path), path, query);
  }

  /**
   * Calls the API of a table entry with validated input. Answers the upstream's success
   * response; throws the decoded UpstreamError for an error answer or a failure in a 200 body.
   */
  async call<B, Q, P>(
    entry: CatalogueEntry<B, Q, P>,
    input: CatalogueInput<B, Q, P>,
    caller: CallerHeaders,
    call: CallContext,
  ): Promise<UpstreamAnswer> {
    const request = this.wireRequest(entry, input);
    // The application's secret may have been rotated: repeated once with new credentials.
    const response = await sendRefreshingCredentials({
      credentials: this.options.credentials,
      send: (app) => this.send(request, app, caller, call),
      vendor: this.options.vendor,
      what: "the catalogue's client id and secret (openapi)",
      call,
    });
    if (response.status < 200 || response.status >= 300) {
      throw (entry.decodeError ?? decodeUpstreamError)(response);
    }
    // An answer handed off (too large to return) is no failure reported in a small body.
    const failure = response.stored ? undefined : entry.failureIn200?.(response);
    if (failure) throw failure;
    return response;
  }

  /** The request on the wire for an entry and its input (exposed for tests). */
  wireRequest<B, Q, P>(
    entry: CatalogueEntry<B, Q, P>,
    input: CatalogueInput<B, Q, P>,
  ): WireRequest {
    const payload = entry.toUpstream(input);
    const path = payload.path ?? entry.upstream.paths[0];
    const params = payload.params ?? [];
    const common = {
      method: entry.upstream.method,
      idempotent: entry.idempotent,
      service: path.split('/')[1] ?? 'catalogue',
    };
    switch (entry.sends) {
      case 'query':
        return { ...common, url: this.urlFor(path, params) };
      case 'form':
        return {
          ...common,
          url: this.urlFor(path),
          contentType: FORM_CONTENT_TYPE,
          body: encodePairs(params),
        };
      case 'json':
        return {
          ...common,
          url: this.urlFor(path, params),
          contentType: JSON_CONTENT_TYPE,
          body: JSON.stringify(payload.json ?? {}),
        };
      case 'raw':
        return {
          ...common,
          url: this.urlFor(path, params),
          contentType: RAW_CONTENT_TYPE,
          body: payload.raw ?? new Uint8Array(),
        };
    }
  }

  private send(
    request: WireRequest,
    app: AppCredentials,
    caller: CallerHeaders,
    call: CallContext,
  ): Promise<UpstreamAnswer> {
    const headers: Record<string, string> = {
      [this.names.clientId]: app.clientId,
      [this.names.apiKey]: app.clientSecret,
    };
    // Only a well-formed value travels on; anything else is as if none was sent.
    if (caller.accept && HEADER_VALUE.test(caller.accept)) headers.accept = caller.accept;
    if (request.contentType) headers['content-type'] = request.contentType;
    return this.options.http.send(
      {
        method: request.method,
        url: request.url,
        headers,
        body: request.body,
        idempotent: request.idempotent,
        service: request.service,
      },
      call,
    );
  }
}

/** The application's client id and secret, which every catalogue call carries. */
export interface AppCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** The catalogue credentials of the secret (`openapi`). */
export function appCredentialsFrom(secrets: SecretStore): CredentialSource<AppCredentials> {
  return credentialsFrom(secrets, (secret) => {
    if (!secret.openapi) {
      throw new MisconfiguredError(new Error('The secret has no openapi credentials'));
    }
    return secret.openapi;
  });
}

/** The container's catalogue client: OPENAPI_BASE_URL, or a service's own host. */
export const catalogueClientOf = perRuntime(
  (runtime: Runtime) =>
    new CatalogueClient({
      baseUrl: requiredSetting(runtime.config.openapiBaseUrl, 'OPENAPI_BASE_URL'),
      serviceUrls: runtime.config.openapiServiceUrls,
      vendor: runtime.config.gatewayVendor,
      credentials: appCredentialsFrom(runtime.secretsFor('catalogue')),
      http: upstreamClientOf(runtime),
    }),
);
