/** Function execution: what the emulator's entry point uses and exports. */
export {
  ACTIVATION_NAMESPACE,
  ACTIVATION_SUBJECT,
  ActivationLog,
  MAX_LOGGED_ACTIVATIONS,
} from './activations.js';
export {
  DEMO_API_ID,
  DEMO_STAGE,
  ECHO_BINARY_BODY,
  FAIL_ERROR,
  SLOW_DEFAULT_MS,
  SLOW_MAX_MS,
} from './demo-actions.js';
export {
  DEMO_SECRET_EMULATOR_URL,
  type DemoSecretDocument,
  demoSecretFor,
} from './demo-secret.js';
export { MAX_BLOCKING_WAIT_MS } from './invoke-request.js';
export {
  ACTIVATIONS_CONTROL_PATH,
  actionModule,
  MAX_WEB_SUBPATH_DEPTH,
  resourcePathOf,
} from './module.js';
export type {
  ActionActivations,
  ActivationLogEntry,
  ActivationRecord,
  ActivationStatus,
  JsonObject,
} from './types.js';
export { WEB_METHODS } from './web.js';
export { ACTIVATION_ID_HEADER, WHISK_MESSAGES } from './whisk-responses.js';
