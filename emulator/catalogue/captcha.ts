/**
 * Image CAPTCHA (`/captcha/v1/nkey`, `/captcha-bin/v1/ncaptcha`) and audio CAPTCHA
 * (`/scaptcha/v1/nkey` as the spec has it, `/scaptcha/v1/skey` as the platform has it, and
 * `/scaptcha-bin/v1/scaptcha`).
 */
import { CONTROL_PREFIX, ControlError, type ControlRoute } from '../core/control-api.ts';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { captchaAudio, captchaImage } from './captcha-media.ts';
import type { CaptchaKind, CaptchaStore } from './captcha-store.ts';
import { badRequest, binary, endpointJson } from './responses.ts';

const INVALID_KEY = { result: false, errorMessage: 'Invalid key.', errorCode: 'CT001' };
const invalidKey = (): GatewayResponse => endpointJson(400, INVALID_KEY);

function compare(store: CaptchaStore, kind: CaptchaKind, request: GatewayRequest): GatewayResponse {
  const key = request.query.get('key');
  const value = request.query.get('value');
  if (!key) return invalidKey();
  if (value === null) return badRequest('value is required with code=1');
  const comparison = store.compare(kind, key, value, request.gatewayNow);
  if (comparison.outcome === 'invalid-key') return invalidKey();
  return endpointJson(200, { result: comparison.result, responseTime: comparison.responseTime });
}

/** code=0 (the default) issues a key; code=1 compares an answer with it. */
function keyEndpoint(store: CaptchaStore, kind: CaptchaKind, request: GatewayRequest) {
  const code = request.query.get('code') ?? '0';
  if (code === '0') return endpointJson(200, { key: store.issue(kind, request.gatewayNow) });
  if (code === '1') return compare(store, kind, request);
  return badRequest('code must be 0 (issue a key) or 1 (compare an answer)');
}

function mediaEndpoint(store: CaptchaStore, kind: CaptchaKind, request: GatewayRequest) {
  const key = request.query.get('key') ?? '';
  const answer = store.answerFor(kind, key, request.gatewayNow);
  if (answer === undefined) return invalidKey();
  return kind === 'image'
    ? binary('image/jpeg', captchaImage(key, answer))
    : binary('audio/wav', captchaAudio(answer));
}

const CAPTCHA_PATHS = {
  imageKey: '/captcha/v1/nkey',
  image: '/captcha-bin/v1/ncaptcha',
  audioKey: '/scaptcha/v1/nkey',
  audioKeyPlatform: '/scaptcha/v1/skey',
  audio: '/scaptcha-bin/v1/scaptcha',
} as const;

export function captchaRoutes(
  store: CaptchaStore,
  authenticate: Authenticator,
  authenticateWithQuery: Authenticator,
): ApiRoute[] {
  const keyRoute = (path: string, kind: CaptchaKind): ApiRoute => ({
    method: 'GET',
    path,
    authenticate,
    handle: ({ request }) => keyEndpoint(store, kind, request),
  });
  // The -bin URLs go into <img>/<audio> tags, so they take credentials in the query too.
  const mediaRoute = (path: string, kind: CaptchaKind): ApiRoute => ({
    method: 'GET',
    path,
    authenticate: authenticateWithQuery,
    handle: ({ request }) => mediaEndpoint(store, kind, request),
  });
  return [
    keyRoute(CAPTCHA_PATHS.imageKey, 'image'),
    mediaRoute(CAPTCHA_PATHS.image, 'image'),
    keyRoute(CAPTCHA_PATHS.audioKey, 'audio'),
    keyRoute(CAPTCHA_PATHS.audioKeyPlatform, 'audio'),
    mediaRoute(CAPTCHA_PATHS.audio, 'audio'),
  ];
}

/** GET /__emulator/captcha/{key}: the answer, for end-to-end tests. */
export function captchaControlRoutes(store: CaptchaStore): ControlRoute[] {
  return [
    {
      method: 'GET',
      path: `${CONTROL_PREFIX}/captcha/{key}`,
      handle: ({ params }) => {
        const key = params['key'] ?? '';
        const answer = store.peek(key);
        if (answer === undefined) throw new ControlError(404, `No live CAPTCHA key "${key}"`);
        return { status: 200, body: { key, answer } };
      },
    },
  ];
}
