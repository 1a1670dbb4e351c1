/**
 * The open API catalogue: every
 * product at its upstream path, behind Client ID / Client Secret authentication.
 */
import { type AnswerSizes, sizedRoute } from '../core/answer-sizes.js';
import type { EmulatorCredentials } from '../credentials.js';
import type { ApiModule } from '../gateway/api-module.js';
import type { VendorHeaders } from '../gateway/vendor-headers.js';
import { catalogueAuthenticator } from './auth.js';
import { captchaControlRoutes, captchaRoutes } from './captcha.js';
import { CaptchaStore } from './captcha-store.js';
import { datalabRoutes } from './datalab.js';
import { directionRoutes } from './directions.js';
import { geocodingRoutes } from './geocoding.js';
import { mapImageRoutes, sizedImage } from './map-images.js';
import { shortUrlRoutes } from './shorturl.js';
import { sizedSpeech, speechRoutes } from './speech.js';
import { translationRoutes } from './translation.js';

/** What tests may ask of the catalogue while the emulator runs. */
export interface CatalogueControl {
  /** The answer of a live CAPTCHA key (image or audio); undefined for an unknown or spent key. */
  captchaAnswer(key: string): string | undefined;
}

export interface CatalogueModuleOptions {
  readonly headers: VendorHeaders;
  /** `apps` is read on every request. */
  readonly credentials: EmulatorCredentials;
  /** The sizes a test asks of answers: speech's (WAV), a map image's. */
  readonly sizes?: AnswerSizes;
}

export type CatalogueModule = ApiModule & CatalogueControl;

export function catalogueModule(options: CatalogueModuleOptions): CatalogueModule {
  const { headers, credentials } = options;
  const authenticate = catalogueAuthenticator(headers, credentials);
  const authenticateWithQuery = catalogueAuthenticator(headers, credentials, {
    allowQueryCredentials: true,
  });
  const captchas = new CaptchaStore();
  return {
    name: 'catalogue',
    routes: [
      ...translationRoutes(authenticate),
      ...speechRoutes(authenticate).map((route) =>
        options.sizes ? sizedRoute(route, options.sizes, 'speech', sizedSpeech) : route,
      ),
      ...mapImageRoutes(authenticate, authenticateWithQuery).map((route) =>
        options.sizes ? sizedRoute(route, options.sizes, 'map', sizedImage) : route,
      ),
      ...directionRoutes(authenticate),
      ...geocodingRoutes(authenticate),
      ...captchaRoutes(captchas, authenticate, authenticateWithQuery),
      ...shortUrlRoutes(authenticate),
      ...datalabRoutes(authenticate),
    ],
    controlRoutes: captchaControlRoutes(captchas),
    reset: () => captchas.clear(),
    captchaAnswer: (key) => captchas.peek(key),
  };
}
