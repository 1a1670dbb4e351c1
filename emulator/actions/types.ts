/**
 * Function execution: actions
 * and triggers of an OpenWhisk-based platform, reached through gateway URLs.
 */

/** JSON object, as actions take and return them. */
export type JsonObject = { [key: string]: unknown };

/** What running an action's code produced (OpenWhisk ActivationResponse, minus the status). */
export type ActionOutcome =
  /** The action returned normally: status `success`. */
  | { readonly kind: 'success'; readonly result: JsonObject }
  /** The action returned `{error}` (or rejected): status `application_error`. */
  | { readonly kind: 'application_error'; readonly result: { readonly error: unknown } };

/** The code of an action: params in, outcome out. */
type ActionCode = (params: JsonObject) => Promise<ActionOutcome>;

export interface ActionDefinition {
  readonly name: string;
  /** Gateway resource path under the API and stage, e.g. `hello`. */
  readonly resource: string;
  /** Web action: any REST method, the HTTP request in `__ow_*` params, an HTTP-shaped result. */
  readonly web: boolean;
  /** The gateway resource requires x-<vendor>-apigw-api-key. */
  readonly requiresApiKey: boolean;
  readonly code: ActionCode;
}

interface RuleDefinition {
  readonly name: string;
  /** The action the rule runs when its trigger fires. */
  readonly action: string;
  readonly active: boolean;
}

export interface TriggerDefinition {
  readonly name: string;
  readonly resource: string;
  readonly requiresApiKey: boolean;
  readonly rules: readonly RuleDefinition[];
}

/** One entry of the emulator's activation log, so tests can assert "ran once" or "never ran". */
export interface ActivationLogEntry {
  readonly activationId: string;
  readonly kind: 'action' | 'trigger';
  readonly name: string;
  /** The params the action or trigger received (web actions: with their `__ow_*` params). */
  readonly params: JsonObject;
  /** The HTTP method of the call that caused it (POST for an action a rule ran). */
  readonly method: string;
  /** Start time, ms on the emulator's clock. */
  readonly at: number;
  /** For an action a rule ran: the trigger's activation id. */
  readonly cause?: string;
}

export type ActivationStatus =
  | 'success'
  | 'application_error'
  | 'action_developer_error'
  | 'whisk_internal_error';

/** OpenWhisk's full activation record (what `blocking=true&result=false` answers). */
export interface ActivationRecord {
  readonly duration: number;
  readonly name: string;
  readonly subject: string;
  readonly activationId: string;
  readonly publish: boolean;
  readonly annotations: readonly { readonly key: string; readonly value: unknown }[];
  readonly version: string;
  readonly response: {
    readonly result: JsonObject;
    readonly success: boolean;
    readonly status: ActivationStatus;
  };
  readonly end: number;
  readonly logs: readonly string[];
  readonly start: number;
  readonly namespace: string;
}

/** What the emulator offers tests about activations (Emulator.actions). */
export interface ActionActivations {
  /** Every activation started, oldest first (copies). */
  activations(): ActivationLogEntry[];
  /** Forgets them. */
  reset(): void;
}
