/**
 * Signed calls to the platform gateway (signature v2): builds the URL
 * under a base URL, signs exactly the path and query that go on the wire, sends through the
 * upstream client, and decodes error answers. When the gateway refuses the credentials, the
 * secret is fetched again once (it may have been rotated) and the call is signed anew.
 */

import { UnexpectedError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { PlatformSecret } from '../../secrets/schema.js';
import type { SecretStore } from '../../secrets/store.js';
import type { CallBudget, UpstreamClient, UpstreamResponse } from '../client.js';
import { decodeUpstreamError } from '../error-decoding.js';
import { sendRefreshingCredentials, upstreamUrl } from './credential-refresh.js';
import { signatureHeaders, signV2 } from './signer.js';

interface SignedCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL, each dynamic segment already encoded. */
  readonly path: string;
  /** Query parameters in the order they are sent (and signed). */
  readonly query?: ReadonlyArray<readonly [string, string]>;
  readonly json?: unknown;
  /** A POST that only reads may be retried like a GET. */
  readonly idempotent?: boolean;
}

interface SignedGatewayOptions {
  readonly baseUrl: URL;
  readonly vendor: string;
  readonly secrets: SecretStore;
  readonly http: UpstreamClient;
  readonly now?: () => number;
  readonly log?: Logger;
}

/**
 * The gateway refuses a timestamp 5 minutes or more from its clock. A refusal whose `Date`
 * is further than this from ours is taken for a drifting clock, not for bad keys.
 */
const CLOCK_SKEW_THRESHOLD_MS = 4 * 60 * 1000;

export class SignedGateway {
  private readonly now: () => number;
  /** Gateway time minus local time, measured from a refusal; kept for the container. */
  private clockOffsetMs = 0;

  constructor(private readonly options: SignedGatewayOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  /** The URL a call goes to: the base URL's own path prefix is kept. */
  urlFor(call: Pick<SignedCall, 'path' | 'query'>): URL {
    return upstreamUrl(this.options.baseUrl, call.path, call.query);
  }

  /** Sends the call; a non-2xx answer is thrown as the decoded UpstreamError. */
  async call(call: SignedCall, budget: CallBudget = {}): Promise<UpstreamResponse> {
    // Signed again at most once for a drifting clock and once for rotated keys.
    const response = await sendRefreshingCredentials({
      secrets: this.options.secrets,
      credentialsOf: (secret) => [secret.iam?.accessKey, secret.iam?.secretKey, secret.apiKey],
      send: (secret) => this.send(call, secret, budget),
      retryWithSameSecret: (refusal) => this.learnClockOffset(refusal),
    });
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
      timestampMs: this.now() + this.clockOffsetMs,
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
      {
        method: call.method,
        url,
        headers,
        body,
        idempotent: call.idempotent,
        service: 'scan-jobs',
      },
      budget,
    );
  }

  /**
   * True when a refusal's `Date` shows the local clock more than CLOCK_SKEW_THRESHOLD_MS off:
   * the offset is kept and every later call is signed with the gateway's time.
   */
  private learnClockOffset(response: UpstreamResponse): boolean {
    const gatewayTime = Date.parse(response.headers.date ?? '');
    if (Number.isNaN(gatewayTime)) return false;
    const offset = gatewayTime - this.now();
    if (Math.abs(offset - this.clockOffsetMs) <= CLOCK_SKEW_THRESHOLD_MS) return false;
    this.clockOffsetMs = offset;
    this.options.log?.warn('local clock is off from the gateway; signing with its time', {
      offsetSeconds: Math.round(offset / 1000),
    });
    return true;
  }
}
