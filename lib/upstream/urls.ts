/** Upstream URLs: a path under a base URL, and name/value pairs as a query or a form body. */

/** Name/value pairs in the order they are sent. */
export type Pairs = ReadonlyArray<readonly [string, string]>;

/**
 * application/x-www-form-urlencoded, UTF-8: what URLSearchParams writes (space as `+`,
 * everything else outside the unreserved set percent-encoded from its UTF-8 bytes).
 */
export function encodePairs(pairs: Pairs): string {
  return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();
}

/** The URL of an upstream path under a base URL, whose own path prefix is kept. */
export function upstreamUrl(base: URL, path: string, query: Pairs = []): URL {
  const url = new URL(base.origin);
  url.pathname = base.pathname.replace(/\/+$/, '') + path;
  if (query.length > 0) url.search = encodePairs(query);
  return url;
}
