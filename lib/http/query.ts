/** Reading an API Gateway HTTP API (payload v2) request's query string. */

type QueryValues = Record<string, string | string[]>;

/**
 * A query string that decodes to itself: printable ASCII with no `%` and no `+`. Split on `&`
 * and `=` as text, it gives what URLSearchParams gives.
 */
const PLAIN_QUERY = /^[\x21-\x24\x26-\x2a\x2c-\x7e]*$/;

/** The query string as sent (`rawQueryString`); a repeated key becomes an array, in order. */
export function queryOf(rawQueryString: string | undefined): QueryValues {
  const raw = rawQueryString ?? '';
  const values: QueryValues = {};
  if (!PLAIN_QUERY.test(raw)) {
    for (const [key, value] of new URLSearchParams(raw)) add(values, key, value);
    return values;
  }
  // Every route's own query (page=1&limit=10), on every request: no decoding to do.
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) add(values, pair, '');
    else add(values, pair.slice(0, equals), pair.slice(equals + 1));
  }
  return values;
}

function add(values: QueryValues, key: string, value: string): void {
  if (!Object.hasOwn(values, key)) {
    // Defined, not assigned: `__proto__` is a key like any other.
    if (key === '__proto__') {
      Object.defineProperty(values, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else values[key] = value;
    return;
  }
  const existing = values[key]!;
  values[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
}
