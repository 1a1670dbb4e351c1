/** Upstream URLs: a path under a base URL, and name/value pairs as a query or a form body. */
import { UnexpectedError } from '../core/errors.ts';
import { hasDotOnlySegment } from '../core/schemas.ts';

/** Name/value pairs in the order they are sent. */
export type Pairs = ReadonlyArray<readonly [string, string]>;

/**
 * application/x-www-form-urlencoded, UTF-8: what URLSearchParams writes (space as `+`,
 * everything else outside the unreserved set percent-encoded from its UTF-8 bytes).
 */
export function encodePairs(pairs: Pairs): string {
  let text = '';
  for (let index = 0; index < pairs.length; index++) {
    const [name, value] = pairs[index]!;
    // Every call's own query (page=1&limit=10): nothing to encode, so joined as text.
    if (!FORM_PLAIN.test(name) || !FORM_PLAIN.test(value)) {
      return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();
    }
    text += index === 0 ? `${name}=${value}` : `&${name}=${value}`;
  }
  return text;
}

/** What the form encoding writes as it is: ASCII letters and digits, `*`, `-`, `.` and `_`. */
const FORM_PLAIN = /^[A-Za-z0-9*._-]*$/;

/**
 * Where a call goes, as the upstream client and the signer read it: the origin, and the path
 * and query exactly as they go on the wire. A `URL` is one.
 */
export interface UpstreamTarget {
  readonly origin: string;
  readonly pathname: string;
  readonly search: string;
  readonly href: string;
}

/**
 * A path the URL parser keeps exactly as written: unreserved characters, sub-delimiters, `:`,
 * `@`, `/` and `%`. Such a path (with no dot-only segment) needs no parsing.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

/** What parsing text would not keep in a path as the pathname setter keeps it (see below). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls are what it matches
const PARSER_UNSAFE = /[?#\x00-\x08\x0b\x0c\x0e-\x20]/g;

/** A base URL's origin and path prefix (without its trailing slashes), read once per base. */
const bases = new WeakMap<URL, { readonly origin: string; readonly prefix: string }>();

function baseOf(base: URL): { readonly origin: string; readonly prefix: string } {
  let parts = bases.get(base);
  if (!parts) {
    parts = { origin: base.origin, prefix: base.pathname.replace(/\/+$/, '') };
    bases.set(base, parts);
  }
  return parts;
}

/**
 * The URL of an upstream path (starting with `/`) under a base URL, whose own path prefix is
 * kept. A path with a dot-only segment is refused before anything is sent: the URL would
 * resolve it and move the path up (every route refuses such input first; this is the last
 * line).
 *
 * Built as the pathname and search setters of a `URL` would build it. A plain path (every route's
 * own, on every request) is joined as text; any other is parsed.
 */
export function upstreamUrl(base: URL, path: string, query: Pairs = []): UpstreamTarget {
  if (hasDotOnlySegment(path)) {
    throw new UnexpectedError(new Error('An upstream path has a dot-only segment; not sent'));
  }
  if (!path.startsWith('/')) {
    throw new UnexpectedError(new Error('An upstream path does not start with "/"; not sent'));
  }
  const { origin, prefix } = baseOf(base);
  // The form encoding writes only characters the URL parser keeps in a query.
  const search = query.length > 0 ? `?${encodePairs(query)}` : '';
  if (PLAIN_PATH.test(path)) {
    const pathname = prefix + path;
    return { origin, pathname, search, href: origin + pathname + search };
  }
  // Parsed once, from text. What the pathname setter would percent-encode but parsing text
  // would not keep is encoded first, as the setter encodes it: `?` and `#` (they would end the
  // path) and spaces and C0 controls (at the end of the text, the parser trims them). Tabs and
  // newlines are dropped by both.
  const encoded = path.replace(PARSER_UNSAFE, encodeURIComponent);
  return new URL(`${origin}${prefix}${encoded}${search}`);
}
