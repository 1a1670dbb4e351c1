/**
 * A JSON body: required, `Content-Type: application/json` (or a `+json` type), and a JSON
 * object; anything else is a 400/`100` naming the body or the header. The body is parsed here,
 * once (lib/http/request-body.ts), and validated with the others by validation.ts.
 */
import { InputError } from '../../core/errors.ts';
import { mediaType } from '../../core/headers.ts';
import { isJsonObject } from '../../core/json.ts';
import type { HttpMiddleware } from './middleware.ts';

/** application/json, or a `+json` type; media types are case-insensitive. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json$/;

export function jsonBody(): HttpMiddleware {
  return {
    before: ({ event: state }) => {
      if (state.body.empty) {
        throw new InputError([{ path: 'body', issue: 'a JSON body is required' }]);
      }
      if (!JSON_MEDIA_TYPE.test(mediaType(state.headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: 'expected application/json' },
        ]);
      }
      // Every JSON route takes an object.
      if (!isJsonObject(state.body.json())) {
        throw new InputError([{ path: 'body', issue: 'expected a JSON object' }]);
      }
    },
  };
}
