/**
 * What `npm start` checks before it starts serverless offline: the variables the functions
 * will read, and the secret file they will read, exactly as the functions check them
 * (lib/core/config.ts, lib/secrets/store.ts). A bad local configuration then stops `npm start`
 * with its cause (the variable, the file, the field; never a value), instead of "Functions
 * ready" followed by an error on every call.
 */
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../../lib/core/config.ts';
import { parseSecret } from '../../lib/secrets/store.ts';

/** Every problem of the local configuration `env` describes, one line each; none: []. */
export async function localConfigurationProblems(env: NodeJS.ProcessEnv): Promise<string[]> {
  let config: ReturnType<typeof loadConfig>;
  try {
    // As serverless offline's workers see it: a local run, not a Lambda container.
    config = loadConfig({ ...env, IS_OFFLINE: 'true' });
  } catch (error) {
    return [messageOf(error)];
  }
  // A secret read from AWS is checked by the functions, when they first read it.
  if (config.secretsSource !== 'file') return [];
  const file = config.secretsFile;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (code ?? 'unreadable');
    return [`SECRETS_FILE: cannot read the secret file ${file} (${why})`];
  }
  try {
    parseSecret(text, `file ${file}`);
  } catch (error) {
    return [`SECRETS_FILE: ${messageOf(error)}`];
  }
  return [];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
