/**
 * Signed calls to the platform gateway (signature v2): builds the URL under a base URL, signs
 * exactly the path and query that go on the wire, sends through the upstream client, and
 * decodes error answers. When the gateway refuses the keys, they are fetched again once (they
 * may have been rotated) and the call is signed anew; when it refuses a clock that drifted, the
 * call is signed once more with the gateway's time. A refusal that still stands is the
 * operator's (credential-refresh.ts): 500/`900`, never the caller's 401.
 */

import type { CallContext } from '../../core/call-context.ts';
import type { Logger } from '../../core/log.ts';
import type { AttemptObserver, UpstreamAnswer, UpstreamClient } from '../client.ts';
import { decodeUpstreamError } from '../error-decoding.ts';
import { type Pairs, type UpstreamTarget, upstreamUrl } from '../urls.ts';
import { type CredentialSource, sendRefreshingCredentials } from './credential-refresh.ts';
import { gatewayHeaderNames } from './header-names.ts';
import { type IamCredentials, signV2 } from './signer.ts';

/** What a signed call is signed with: the IAM keys, and the gateway API key when there is one. */
export interface SigningKeys extends IamCredentials {
  readonly apiKey?: string | undefined;
}

interface SignedCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL, each dynamic segment already encoded. */
  readonly path: string;
  /** Query parameters in the order they are sent (and signed). */
  readonly query?: Pairs;
  readonly json?: unknown;
  /** A POST that only reads may be retried like a GET. */
  readonly idempotent?: boolean;
  /** Told how each attempt ended (a bulk walk's pool). */
  readonly onAttempt?: AttemptObserver | undefined;
}

interface SignedGatewayOptions {
  readonly baseUrl: URL;
  readonly vendor: string;
  readonly credentials: CredentialSource<SigningKeys>;
  readonly http: UpstreamClient;
  /** The platform service, for metrics (`scan-jobs`). */
  readonly service: string;
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

  private readonly options: SignedGatewayOptions;

  constructor(options: SignedGatewayOptions) {
    this.options = options;
    this.now = options.now ?? (() => Date.now());
  }

  /** The URL a call goes to: the base URL's own path prefix is kept. */
  urlFor(call: Pick<SignedCall, 'path' | 'query'>): UpstreamTarget {
    return upstreamUrl(this.options.baseUrl, call.path, call.query);
  }

  /** Sends the call; a non-2xx answer is thrown as the decoded UpstreamError. */
  async call(call: SignedCall, context: CallContext): Promise<UpstreamAnswer> {
    // Signed again at most once for a drifting clock and once for rotated keys.
    const answer = await sendRefreshingCredentials({
      credentials: this.options.credentials,
      send: (keys) => this.send(call, keys, context),
      retryWithSameCredentials: (refusal) => this.learnClockOffset(refusal),
      vendor: this.options.vendor,
      what: `the ${this.options.service} signing keys (iam, apiKey)`,
      call: context,
    });
    if (answer.status < 200 || answer.status >= 300) throw decodeUpstreamError(answer);
    return answer;
  }

  private send(call: SignedCall, keys: SigningKeys, context: CallContext) {
    const url = this.urlFor(call);
    const signed = signV2({
      method: call.method,
      uri: url.pathname + url.search,
      timestampMs: this.now() + this.clockOffsetMs,
      credentials: keys,
    });
    const names = gatewayHeaderNames(this.options.vendor);
    const headers: Record<string, string> = {
      [names.timestamp]: signed.timestamp,
      [names.accessKey]: keys.accessKey,
      [names.signature]: signed.signature,
      accept: 'application/json',
    };
    if (keys.apiKey) headers[names.apiKey] = keys.apiKey;
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
        service: this.options.service,
        onAttempt: call.onAttempt,
      },
      context,
    );
  }

  /**
   * True when a refusal's `Date` shows the local clock more than CLOCK_SKEW_THRESHOLD_MS off:
   * the offset is kept and every later call is signed with the gateway's time.
   */
  private learnClockOffset(refusal: UpstreamAnswer): boolean {
    const gatewayTime = Date.parse(refusal.headers.date ?? '');
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
