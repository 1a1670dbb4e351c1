/**
 * JSON values as the emulator keeps them, at any depth: a caller's parameters may nest deeply,
 * and copying them with structuredClone (or anything recursive) overflows the stack a few
 * thousand levels down, turning a valid request into a 500. These walk an explicit stack.
 *
 * The platform's controller (OpenWhisk) parses requests with spray-json, whose parser refuses
 * JSON nested deeper than its maxNesting, 1,000 by default ("JSON input was nested more deeply
 * than the configured limit of maxNesting = 1000", spray/spray-json pull request 325): the
 * emulator takes up to that depth, and refuses deeper JSON the same way (400, "The request
 * content was malformed").
 */

/** The deepest JSON the platform's parser takes (spray-json's default maxNesting). */
export const MAX_JSON_DEPTH = 1000;

/** The nesting depth of a parsed JSON value (a scalar is 0), counting no further than `limit`. */
export function depthOf(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** A deep copy of a JSON value (objects, arrays, scalars), however deep. */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const root = (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
  const stack: [Record<string, unknown>, Record<string, unknown>][] = [
    [value as Record<string, unknown>, root],
  ];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const [key, child] of Object.entries(from)) {
      if (child === null || typeof child !== 'object') {
        to[key] = child;
        continue;
      }
      const copy = (Array.isArray(child) ? [] : {}) as Record<string, unknown>;
      to[key] = copy;
      stack.push([child as Record<string, unknown>, copy]);
    }
  }
  return root as T;
}
