import type { ControlRoute } from '../core/control-api.ts';
import type { RouteDefinition } from '../core/router.ts';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { Authenticator } from './iam-auth.ts';

interface RouteContext {
  readonly request: GatewayRequest;
  /** Path template parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
}

/** One API operation behind the gateway. */
export interface ApiRoute extends RouteDefinition {
  /** Runs before the handler; the gateway answers the refusal itself. */
  readonly authenticate: Authenticator;
  handle(context: RouteContext): GatewayResponse | Promise<GatewayResponse>;
}

/**
 * A product behind the gateway (scan jobs; later function execution, the catalogue): its
 * routes, any test-control routes under /__emulator, and its state to reset.
 */
export interface ApiModule {
  readonly name: string;
  readonly routes: readonly ApiRoute[];
  readonly controlRoutes?: readonly ControlRoute[];
  reset(): void;
}
