/**
 * A body taken as bytes (audio, say) that the stack checks: one of the route's media types, and
 * not empty. The handler reads the bytes themselves (`request.bytes`).
 */
import { InputError } from '../../core/errors.ts';
import { mediaType } from '../../core/headers.ts';
import type { HttpMiddleware } from './middleware.ts';

export function bytesBody(contentTypes: readonly string[], required: boolean): HttpMiddleware {
  const accepted = new Set(contentTypes.map((type) => type.toLowerCase()));
  return {
    before: ({ event: state }) => {
      if (!accepted.has(mediaType(state.headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: `expected ${[...accepted].join(' or ')}` },
        ]);
      }
      if (required && state.body.byteLength === 0) {
        throw new InputError([{ path: 'body', issue: 'a non-empty body is required' }]);
      }
    },
  };
}
