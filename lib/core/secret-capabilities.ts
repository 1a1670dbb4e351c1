/** The capabilities a secret holds, and the settings that name a capability's own secret. */

/**
 * What a secret holds, by what reads it: the signing keys (`iam`, `apiKey`), the catalogue's
 * client credentials (`openapi`), the actions and triggers, the webhooks, the callers. Deployed,
 * each may be a secret of its own, read only by the functions that use it.
 */
export const SECRET_CAPABILITIES = [
  'signing',
  'catalogue',
  'execution',
  'webhooks',
  'callers',
] as const;
export type SecretCapability = (typeof SECRET_CAPABILITIES)[number];

/** The setting that names a capability's own secret: SIGNING_SECRET_ID, ... */
export function secretIdSetting(capability: SecretCapability): string {
  return `${capability.toUpperCase()}_SECRET_ID`;
}
