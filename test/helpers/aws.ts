/** Throwaway credentials and a region, for AWS SDK clients talking to a loopback stand-in. */
export const LOOPBACK_AWS = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKTEST',
  AWS_SECRET_ACCESS_KEY: 'loopback-secret-access-key',
} as const;

/**
 * Points the real AWS SDK clients at a loopback server through the SDK's own
 * service-specific endpoint variable, with throwaway credentials. Returns the restore.
 */
export function pointAwsSdkAt(endpointVariable: string, endpoint: string): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, {
    [endpointVariable]: endpoint,
    ...LOOPBACK_AWS,
  });
  delete process.env.AWS_PROFILE;
  return () => {
    process.env = saved;
  };
}
