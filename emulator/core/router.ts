/**
 * A small path-template router: `/api/v1/jobs/{instanceId}/cancel` matches one non-empty
 * segment per `{name}`. Parameters are percent-decoded; a malformed escape does not match.
 */
export interface RouteDefinition {
  readonly method: string;
  /** A path template such as `/api/v1/jobs/{instanceId}/report`. */
  readonly path: string;
}

export type RouteMatch<R extends RouteDefinition> =
  | {
      readonly kind: 'matched';
      readonly route: R;
      readonly params: Readonly<Record<string, string>>;
    }
  /** The path exists but not with this method. */
  | { readonly kind: 'method-not-allowed'; readonly allowed: readonly string[] }
  | { readonly kind: 'not-found' };

interface CompiledRoute<R extends RouteDefinition> {
  readonly route: R;
  readonly pattern: RegExp;
  readonly paramNames: readonly string[];
}

const PARAM = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile<R extends RouteDefinition>(route: R): CompiledRoute<R> {
  const paramNames: string[] = [];
  let source = '';
  let lastIndex = 0;
  for (const match of route.path.matchAll(PARAM)) {
    source += escapeRegExp(route.path.slice(lastIndex, match.index));
    source += '([^/]+)';
    paramNames.push(match[1] ?? '');
    lastIndex = match.index + match[0].length;
  }
  source += escapeRegExp(route.path.slice(lastIndex));
  return { route, pattern: new RegExp(`^${source}$`), paramNames };
}

function decodeParams(
  names: readonly string[],
  values: readonly (string | undefined)[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    try {
      params[name] = decodeURIComponent(values[index] ?? '');
    } catch {
      return undefined;
    }
  }
  return params;
}

export class Router<R extends RouteDefinition> {
  readonly #routes: CompiledRoute<R>[] = [];

  constructor(routes: Iterable<R> = []) {
    for (const route of routes) this.add(route);
  }

  add(route: R): void {
    this.#routes.push(compile(route));
  }

  match(method: string, path: string): RouteMatch<R> {
    const allowed: string[] = [];
    for (const compiled of this.#routes) {
      const found = compiled.pattern.exec(path);
      if (!found) continue;
      const params = decodeParams(compiled.paramNames, found.slice(1));
      if (!params) continue;
      if (compiled.route.method === method)
        return { kind: 'matched', route: compiled.route, params };
      allowed.push(compiled.route.method);
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
