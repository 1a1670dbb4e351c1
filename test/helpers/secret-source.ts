import type { SecretSource } from '../../lib/secrets/sources.ts';

/**
 * A secret source in memory: a test rotates the secret by setting `state.text`, and
 * `state.fetches` counts the reads.
 */
export function memorySecretSource(initial: object) {
  const state = { text: JSON.stringify(initial), fetches: 0 };
  const source: SecretSource = {
    description: 'memory',
    fetchText: async () => {
      state.fetches++;
      return state.text;
    },
  };
  return { source, state };
}
