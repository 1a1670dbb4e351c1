/**
 * The open API catalogue: every
 * product at its upstream path, behind Client ID / Client Secret authentication.
 */
import { type AnswerSizes, sizedRoute } from '../core/answer-sizes.ts';
import type { EmulatorCredentials } from '../credentials.ts';
import type { ApiModule } from '../gateway/api-module.ts';
import type { VendorHeaders } from '../gateway/vendor-headers.ts';
import { catalogueAuthenticator } from './auth.ts';
import { captchaControlRoutes, captchaRoutes } from './captcha.ts';
import { CaptchaStore } from './captcha-store.ts';
import { datalabRoutes } from './datalab.ts';
import { directionRoutes } from './directions.ts';
import { geocodingRoutes } from './geocoding.ts';
import { mapImageRoutes, sizedImage } from './map-images.ts';
import { shortUrlRoutes } from './shorturl.ts';
import { sizedSpeech, speechRoutes } from './speech.ts';
import { translationRoutes } from './translation.ts';

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
