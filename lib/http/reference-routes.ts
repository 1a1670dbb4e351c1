/**
 * The reference's routes (GET /docs, GET /openapi.json) as a stage serves them: public, the
 * default, or for known callers when the stage turns its public reference off
 * (PUBLIC_REFERENCE=false, from the stage parameter publicReference). serverless.yml deploys the
 * handler of the stage's choice; each checks at its init that the stage says the same. And
 * GET /openapi.json's answer, the document as built at package time (openapi-document.ts).
 */
import { loadPublicReference } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { openApiDocumentText } from './openapi-document.ts';
import type { HttpResponse } from './responses.ts';
import { accessOf, type Route } from './routes/route.ts';

/** The route as a public reference serves it; refused at init where the stage says otherwise. */
export function publicReferenceRoute<R extends Route>(
  route: R,
): Omit<R, 'access'> & { readonly access: 'public' } {
  if (!loadPublicReference()) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_REFERENCE is false, but ${route.id} was deployed public (serverless.yml chooses the handler by the stage's publicReference)`,
    );
  }
  return { ...route, access: accessOf(route, true) as 'public' };
}

/** The route as a reference for known callers serves it. */
export function callerReferenceRoute<R extends Route>(
  route: R,
): Omit<R, 'access'> & { readonly access: 'caller' } {
  return { ...route, access: accessOf(route, false) as 'caller' };
}

/** GET /openapi.json's answer: the document of every route, the same text on every call. */
export function openApiDocument(): HttpResponse {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: openApiDocumentText(),
  };
}
