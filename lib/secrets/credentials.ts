/**
 * The secret store as the upstream side sees it: one kind of credentials, selected from the
 * secret (the signing keys, the catalogue's client id and secret). A refresh of the selection
 * refreshes the secret it was selected from.
 */
import type { CredentialSource } from '../upstream/gateway/credential-refresh.ts';
import type { PlatformSecret } from './schema.ts';
import type { SecretStore } from './store.ts';

/**
 * `select` reads the credentials from a secret, and throws when the secret lacks them; it runs
 * once per fetched secret.
 */
export function credentialsFrom<T extends object>(
  store: SecretStore,
  select: (secret: PlatformSecret) => T,
): CredentialSource<T> {
  const selected = new WeakMap<PlatformSecret, T>();
  const selectedFrom = new WeakMap<T, PlatformSecret>();
  const view = (secret: PlatformSecret): T => {
    let credentials = selected.get(secret);
    if (!credentials) {
      credentials = select(secret);
      selected.set(secret, credentials);
      selectedFrom.set(credentials, secret);
    }
    return credentials;
  };
  return {
    get: async () => view(await store.get()),
    current: () => {
      const secret = store.peek();
      return secret && view(secret);
    },
    refresh: async (previous) => {
      const secret = selectedFrom.get(previous);
      return view(secret ? await store.refresh(secret) : await store.get());
    },
  };
}
