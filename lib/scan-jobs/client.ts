/**
 * The scan job API's client: signed calls to list, search, cancel, stop and report. Upstream
 * success bodies are returned unchanged by the handlers. The work that grows (the page walk,
 * cancel-reserved) is bulk.ts's, on top of it, so that the functions of single calls carry
 * none of it.
 */

import type { CallContext } from '../core/call-context.ts';
import type { BulkSettings } from '../core/config.ts';
import { requiredSetting } from '../core/deployed-settings.ts';
import { MisconfiguredError, UnexpectedError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { credentialsFrom } from '../secrets/credentials.ts';
import type { SecretStore } from '../secrets/store.ts';
import {
  type AttemptObserver,
  type UpstreamAnswer,
  type UpstreamClient,
  upstreamClientOf,
} from '../upstream/client.ts';
import type { CredentialSource } from '../upstream/gateway/credential-refresh.ts';
import { SignedGateway, type SigningKeys } from '../upstream/gateway/signed-gateway.ts';
import { type JobOperation, withJobHint } from './hints.ts';
import { DEFAULT_PAGE_SIZE, isJobId, type ListQuery, type SearchBody } from './schemas.ts';

const API = '/api/v1/jobs';

/** Bulk settings of a client built without them (tests): the platform's default page. */
const PLAIN_BULK: BulkSettings = {
  pageSize: DEFAULT_PAGE_SIZE,
  pageConcurrency: 1,
  cancelConcurrency: 1,
};

interface ScanJobsClientOptions {
  /** `{base_url}` of the scan job API, without `/api/v1`. */
  readonly baseUrl: URL;
  readonly vendor: string;
  readonly credentials: CredentialSource<SigningKeys>;
  readonly http: UpstreamClient;
  /** How the walks call the platform (config BULK_*). */
  readonly bulk?: BulkSettings;
  readonly now?: () => number;
  readonly log?: Logger;
}

/** A page size the platform accepted, remembered by the container for one kind of walk. */
function rememberedSize(): { get(): number | undefined; set(size: number): void } {
  let size: number | undefined;
  return {
    get: () => size,
    set: (accepted) => {
      size = accepted;
    },
  };
}

export class ScanJobsClient {
  private readonly gateway: SignedGateway;
  /** How bulk work calls the platform (config BULK_*). */
  readonly bulk: BulkSettings;
  /** The page sizes the platform accepted, remembered by the container for each kind of walk. */
  readonly listPageSize = rememberedSize();
  readonly searchPageSize = rememberedSize();

  constructor(options: ScanJobsClientOptions) {
    this.gateway = new SignedGateway({ ...options, service: 'scan-jobs' });
    this.bulk = options.bulk ?? PLAIN_BULK;
  }

  list(query: ListQuery, call: CallContext, onAttempt?: AttemptObserver): Promise<UpstreamAnswer> {
    const params: [string, string][] = [
      ['page', String(query.page)],
      ['limit', String(query.limit)],
    ];
    return hinted(
      'list',
      this.gateway.call({ method: 'GET', path: API, query: params, onAttempt }, call),
    );
  }

  search(
    body: SearchBody,
    call: CallContext,
    onAttempt?: AttemptObserver,
  ): Promise<UpstreamAnswer> {
    // A search only reads, so it may be retried like a GET.
    return hinted(
      'search',
      this.gateway.call(
        { method: 'POST', path: `${API}/search`, json: body, idempotent: true, onAttempt },
        call,
      ),
    );
  }

  cancel(
    instanceId: string,
    call: CallContext,
    onAttempt?: AttemptObserver,
  ): Promise<UpstreamAnswer> {
    return hinted(
      'cancel',
      this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'cancel'), onAttempt }, call),
    );
  }

  stop(instanceId: string, call: CallContext): Promise<UpstreamAnswer> {
    return hinted(
      'stop',
      this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'stop') }, call),
    );
  }

  report(instanceId: string, call: CallContext): Promise<UpstreamAnswer> {
    return hinted(
      'report',
      this.gateway.call({ method: 'GET', path: jobPath(instanceId, 'report') }, call),
    );
  }
}

/** A 901 of the platform, with the usual causes of this call's refusal (hints.ts). */
function hinted(operation: JobOperation, call: Promise<UpstreamAnswer>): Promise<UpstreamAnswer> {
  return call.catch((thrown: unknown) => {
    throw withJobHint(thrown, operation);
  });
}

function jobPath(instanceId: string, action: 'cancel' | 'stop' | 'report'): string {
  // Callers' ids are refused by the route first, the platform's by the walks: the last line.
  if (!isJobId(instanceId)) {
    throw new UnexpectedError(new Error('A scan job id outside the id pattern; not sent'));
  }
  return `${API}/${instanceId}/${action}`;
}

/** The signing keys of the secret: its IAM keys, and the gateway API key when it has one. */
export function signingKeysFrom(secrets: SecretStore): CredentialSource<SigningKeys> {
  return credentialsFrom(secrets, (secret) => {
    if (!secret.iam) throw new MisconfiguredError(new Error('The secret has no iam credentials'));
    return { ...secret.iam, apiKey: secret.apiKey };
  });
}

/** The container's scan job client: signed calls under SCAN_BASE_URL. */
export const scanJobsClientOf = perRuntime(
  (runtime: Runtime) =>
    new ScanJobsClient({
      baseUrl: requiredSetting(runtime.config.scanBaseUrl, 'SCAN_BASE_URL'),
      vendor: runtime.config.gatewayVendor,
      credentials: signingKeysFrom(runtime.secretsFor('signing')),
      http: upstreamClientOf(runtime),
      bulk: runtime.config.bulk,
      now: runtime.now,
      log: runtime.log,
    }),
);
