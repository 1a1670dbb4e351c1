/**
 * The catch-all route: an unknown path is a 404 (`300`), a known path called with another
 * method a 405 (`100`) with `Allow`, both in the uniform envelope rather than API Gateway's own.
 */
import { MethodNotAllowedError, NotFoundError } from '../lib/core/errors.ts';
import { bind } from '../lib/http/bind.ts';
import { fallbackRoute } from '../lib/http/routes/fallback.ts';
import { allowedMethods } from '../lib/http/routes/index.ts';

export const handler = bind(fallbackRoute, async (request) => {
  const allow = allowedMethods(request.rawPath);
  if (!allow) throw new NotFoundError('URL not found.');
  throw new MethodNotAllowedError(allow);
});
