/** Function execution: what the emulator's entry point uses and exports. */
export {
  ActivationLog,
  MAX_LOGGED_ACTIVATIONS,
} from './activations.js';
export {
  DEMO_API_ID,
  DEMO_STAGE,
  ECHO_BINARY_BODY,
  FAIL_ERROR,
} from './demo-actions.js';
export { demoSecretFor } from './demo-secret.js';
export { actionModule } from './module.js';
export type {
  ActionActivations,
  ActivationRecord,
} from './types.js';
export { WEB_METHODS } from './web.js';
export { ACTIVATION_ID_HEADER } from './whisk-responses.js';
