/**
 * The reference's routes (GET /docs, GET /openapi.json) as a stage serves them: public, the
 * default, or for known callers when the stage turns its public reference off
 * (PUBLIC_REFERENCE=false, from the stage parameter publicReference). serverless.yml deploys the
 * handler of the stage's choice; each checks at its init that the stage says the same.
 */
import { loadPublicReference } from '../core/config.js';
import { ConfigError } from '../core/errors.js';
import { accessOf, type Route } from './routes/route.js';

/** The route as a public reference serves it; refused at init where the stage says otherwise. */
export function publicReferenceRoute<B, Q, P>(route: Route<B, Q, P>): Route<B, Q, P> {
  if (!loadPublicReference()) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_REFERENCE is false, but ${route.id} was deployed public (serverless.yml chooses the handler by the stage's publicReference)`,
    );
  }
  return { ...route, access: accessOf(route, true) };
}

/** The route as a reference for known callers serves it. */
export function callerReferenceRoute<B, Q, P>(route: Route<B, Q, P>): Route<B, Q, P> {
  return { ...route, access: accessOf(route, false) };
}
