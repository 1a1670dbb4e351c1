/**
 * Points the real AWS SDK clients at a loopback server through the SDK's own
 * service-specific endpoint variable, with throwaway credentials. Returns the restore.
 */
export function pointAwsSdkAt(endpointVariable: string, endpoint: string): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, {
    [endpointVariable]: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKTEST',
    AWS_SECRET_ACCESS_KEY: 'loopback-secret-access-key',
  });
  delete process.env.AWS_PROFILE;
  return () => {
    process.env = saved;
  };
}
