/**
 * A JSON body: required, `Content-Type: application/json` (or a `+json` type), and a JSON
 * object; anything else is a 400/`100` naming the body or the header.
 */
import { InputError } from '../../core/errors.js';
import { mediaType } from '../../core/headers.js';
import { callerJsonObject } from '../../core/json.js';
import type { Logger } from '../../core/log.js';
import { bodyBytes } from '../request.js';
import { type HttpMiddleware, stateOf } from './request-state.js';

/** application/json, or a `+json` type; media types are case-insensitive. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json$/;

export function jsonBody(baseLog: Logger): HttpMiddleware {
  return {
    before: (request) => {
      const headers = stateOf(request, baseLog).headers;
      if (request.event.body === undefined || request.event.body === '') {
        throw new InputError([{ path: 'body', issue: 'a JSON body is required' }]);
      }
      if (!JSON_MEDIA_TYPE.test(mediaType(headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: 'expected application/json' },
        ]);
      }
      // Every JSON route takes an object.
      (request.event as { body: unknown }).body = callerJsonObject(bodyBytes(request.event));
    },
  };
}
