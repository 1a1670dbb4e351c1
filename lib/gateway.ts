/**
 * Signed calls to the platform gateway (signature v2, contract section 6): builds the URL
 * under a base URL, signs exactly the path and query that go on the wire, sends through the
 * upstream client, and decodes error answers. When the gateway refuses the credentials, the
 * secret is fetched again once (it may have been rotated) and the call is signed anew.
 */
import { decodeUpstreamError } from './errorCodec.js';
import { UnexpectedError } from './errors.js';
import type { CallBudget, UpstreamClient, UpstreamResponse } from './http/client.js';
import type { PlatformSecret } from './secrets/schema.js';
import type { SecretStore } from './secrets/store.js';
import { signatureHeaders, signV2 } from './signer.js';

export interface SignedCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL, each dynamic segment already encoded. */
  readonly path: string;
  /** Query parameters in the order they are sent (and signed). */
  readonly query?: ReadonlyArray<readonly [string, string]>;
  readonly json?: unknown;
  /** A POST that only reads may be retried like a GET. */
  readonly idempotent?: boolean;
}

export interface SignedGatewayOptions {
  readonly baseUrl: URL;
  readonly vendor: string;
  readonly secrets: SecretStore;
  readonly http: UpstreamClient;
  readonly now?: () => number;
}

export class SignedGateway {
  private readonly now: () => number;

  constructor(private readonly options: SignedGatewayOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The URL a call goes to: the base URL's own path prefix is kept. */
  urlFor(call: Pick<SignedCall, 'path' | 'query'>): URL {
    const base = this.options.baseUrl;
    const url = new URL(base.origin);
    url.pathname = base.pathname.replace(/\/+$/, '') + call.path;
    if (call.query && call.query.length > 0) {
      url.search = new URLSearchParams(
        call.query.map(([k, v]): [string, string] => [k, v]),
      ).toString();
    }
    return url;
  }

  /** Sends the call; a non-2xx answer is thrown as the decoded UpstreamError. */
  async call(call: SignedCall, budget: CallBudget = {}): Promise<UpstreamResponse> {
    const secret = await this.options.secrets.get();
    let response = await this.send(call, secret, budget);
    if (isAuthFailure(response)) {
      const fresh = await this.options.secrets.refresh(secret);
      if (credentialsChanged(secret, fresh)) response = await this.send(call, fresh, budget);
    }
    if (response.status < 200 || response.status >= 300) throw decodeUpstreamError(response);
    return response;
  }

  private send(call: SignedCall, secret: PlatformSecret, budget: CallBudget) {
    const iam = secret.iam;
    if (!iam) throw new UnexpectedError(new Error('The secret has no iam credentials'));
    const url = this.urlFor(call);
    const signed = signV2({
      method: call.method,
      uri: url.pathname + url.search,
      timestampMs: this.now(),
      credentials: iam,
    });
    const headers = signatureHeaders(this.options.vendor, signed, iam.accessKey, secret.apiKey);
    headers.accept = 'application/json';
    let body: string | undefined;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    return this.options.http.send(
      { method: call.method, url, headers, body, idempotent: call.idempotent },
      budget,
    );
  }
}

/** 401 with the gateway's `200` (Authentication Failed): the keys themselves were refused. */
function isAuthFailure(response: UpstreamResponse): boolean {
  return response.status === 401 && decodeUpstreamError(response).code === '200';
}

function credentialsChanged(before: PlatformSecret, after: PlatformSecret): boolean {
  return (
    before.iam?.accessKey !== after.iam?.accessKey ||
    before.iam?.secretKey !== after.iam?.secretKey ||
    before.apiKey !== after.apiKey
  );
}
