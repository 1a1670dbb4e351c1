/** A raw body (bytes, such as audio): one of the route's media types, and not empty. */
import { InputError } from '../../core/errors.js';
import { mediaType } from '../../core/headers.js';
import type { Logger } from '../../core/log.js';
import { bodyByteLength } from '../request.js';
import { type HttpMiddleware, stateOf } from './request-state.js';

export function rawBody(contentTypes: readonly string[], baseLog: Logger): HttpMiddleware {
  const accepted = new Set(contentTypes.map((type) => type.toLowerCase()));
  return {
    before: (request) => {
      const headers = stateOf(request, baseLog).headers;
      if (!accepted.has(mediaType(headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: `expected ${[...accepted].join(' or ')}` },
        ]);
      }
      if (bodyByteLength(request.event) === 0) {
        throw new InputError([{ path: 'body', issue: 'a non-empty body is required' }]);
      }
    },
  };
}
