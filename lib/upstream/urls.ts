/** Upstream URLs: a path under a base URL, and name/value pairs as a query or a form body. */
import { UnexpectedError } from '../core/errors.js';
import { isDotOnlySegment } from '../core/schemas.js';

/** Name/value pairs in the order they are sent. */
export type Pairs = ReadonlyArray<readonly [string, string]>;

/**
 * application/x-www-form-urlencoded, UTF-8: what URLSearchParams writes (space as `+`,
 * everything else outside the unreserved set percent-encoded from its UTF-8 bytes).
 */
export function encodePairs(pairs: Pairs): string {
  return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();
}

/** What parsing text would not keep in a path as the pathname setter keeps it (see below). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls are what it matches
const PARSER_UNSAFE = /[?#\x00-\x08\x0b\x0c\x0e-\x20]/g;

/**
 * The URL of an upstream path (starting with `/`) under a base URL, whose own path prefix is
 * kept. A path with a dot-only segment is refused before anything is sent: the URL would
 * resolve it and move the path up (every route refuses such input first; this is the last
 * line).
 */
export function upstreamUrl(base: URL, path: string, query: Pairs = []): URL {
  if (path.split('/').some(isDotOnlySegment)) {
    throw new UnexpectedError(new Error('An upstream path has a dot-only segment; not sent'));
  }
  if (!path.startsWith('/')) {
    throw new UnexpectedError(new Error('An upstream path does not start with "/"; not sent'));
  }
  // Parsed once, from text. What the pathname setter would percent-encode but parsing text
  // would not keep is encoded first, as the setter encodes it: `?` and `#` (they would end the
  // path) and spaces and C0 controls (at the end of the text, the parser trims them). Tabs and
  // newlines are dropped by both.
  const search = query.length > 0 ? `?${encodePairs(query)}` : '';
  const prefix = base.pathname.replace(/\/+$/, '');
  const encoded = path.replace(PARSER_UNSAFE, encodeURIComponent);
  return new URL(`${base.origin}${prefix}${encoded}${search}`);
}
