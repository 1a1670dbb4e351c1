/** Function execution: what the emulator's entry point uses and exports. */
export {
  ActivationLog,
  MAX_LOGGED_ACTIVATIONS,
} from './activations.ts';
export {
  DEMO_API_ID,
  DEMO_STAGE,
  ECHO_BINARY_BODY,
  FAIL_ERROR,
} from './demo-actions.ts';
export { demoSecretFor } from './demo-secret.ts';
export { actionModule } from './module.ts';
export type {
  ActionActivations,
  ActivationRecord,
} from './types.ts';
export { WEB_METHODS } from './web.ts';
export { ACTIVATION_ID_HEADER } from './whisk-responses.ts';
