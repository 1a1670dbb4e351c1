/**
 * The one error taxonomy. Every failure a caller can see is a ServiceError (service-error.ts):
 * an HTTP status, the platform's errorCode (always a string) and message, and optional
 * details; anything else that escapes a handler is reported as 500/`900` (`toServiceError`).
 * Its families, each a module of its own, are named here, so that one import finds any of them:
 *
 *   request-errors.ts    what a request did wrong or may not do: input, credentials, scope,
 *                        route, size (400, 401, 403, 404, 405, 406, 409, 413; 503 when the
 *                        callers or webhooks cannot be checked)
 *   plan-errors.ts       what the usage plans refuse (429 / `420`, `400`, `410`; 503 closed)
 *   upstream-errors.ts   what came of a call upstream (the platform's own error; 502, 503, 504;
 *                        the deployment's credentials refused: 500)
 *   internal-errors.ts   failures that never reach a caller as such (the configuration, the
 *                        secret, the watcher's state)
 */
export {
  ConfigError,
  ExtensionUnreachableError,
  SecretError,
  SecretReadError,
  WatcherStateError,
  WatchRunError,
} from './internal-errors.ts';
export {
  type PlanHolder,
  QuotaExceededError,
  RateLimitedError,
  ThrottleLimitedError,
  UsageStoreUnavailableError,
} from './plan-errors.ts';
export {
  CallerAuthError,
  CallerScopeError,
  CallersUnavailableError,
  InputError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  TooManyMatchesError,
  WebhookSignatureError,
  WebhooksUnavailableError,
} from './request-errors.ts';
export {
  type InputIssue,
  MisconfiguredError,
  ServiceError,
  toServiceError,
  UnexpectedError,
} from './service-error.ts';
export {
  CredentialsRefusedError,
  CredentialsUnavailableError,
  UpstreamError,
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from './upstream-errors.ts';
