/**
 * `npm run new-caller -- <id> <scope>... [--not-after=<ISO 8601>] [--json]`: makes a caller. A
 * token of 32 random bytes (base64url, 43 characters) is printed once, for the caller; the entry
 * to paste into the secret's `callers` holds only the token's SHA-256 (`tokenSha256`), so that
 * whoever reads the secret cannot call as the caller. Nothing is written anywhere.
 *
 *   npm run new-caller -- reporting jobs:read
 *   npm run new-caller -- deploy-bot actions:deploy 'triggers:*' --not-after=2027-01-31T00:00:00Z
 */
import { hash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { type CallerEntry, callerSchema } from '../lib/secrets/callers-schema.ts';
import { parseCommand, refused, UsageError } from './local/args.ts';

/** Random bytes of a new token: 256 bits, which no number of tries can guess. */
export const TOKEN_BYTES = 32;

interface NewCaller {
  /** Shown once, to hand to the caller. */
  readonly token: string;
  /** The entry of the secret's `callers`: the token's digest, never the token. */
  readonly entry: CallerEntry;
}

/** A new caller of this id and these scopes; throws, naming the field, when one is not valid. */
export function newCaller(
  options: { id: string; scopes: readonly string[]; notAfter?: string | undefined },
  random: (bytes: number) => Buffer = randomBytes,
): NewCaller {
  let token = random(TOKEN_BYTES).toString('base64url');
  // A token that starts with "-" reads as a flag on a command line (npm run smoke -- <url>
  // <token>): drawn again, at a cost of 0.02 bits of its 256.
  while (token.startsWith('-')) token = random(TOKEN_BYTES).toString('base64url');
  const entry = {
    id: options.id,
    tokenSha256: hash('sha256', token, 'hex'),
    scopes: [...options.scopes],
    ...(options.notAfter === undefined ? {} : { notAfter: options.notAfter }),
  };
  const parsed = callerSchema.safeParse(entry);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(caller)'}: ${issue.message}`,
    );
    throw new Error(`Not a valid caller: ${problems.join('; ')}`);
  }
  return { token, entry: parsed.data };
}

const USAGE =
  'usage: npm run new-caller -- <id> <scope>... [--not-after <ISO 8601>] [--json]\n' +
  '  e.g. npm run new-caller -- reporting jobs:read';
const OPTIONS = { 'not-after': { type: 'string' }, json: { type: 'boolean' } } as const;

/** The command: prints the token once and the entry to paste; returns the exit code. */
export function main(args: readonly string[], out = console.log, err = console.error): number {
  try {
    return run(args, out, err);
  } catch (error) {
    return refused(error, USAGE, err);
  }
}

function run(
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): number {
  const { values, positionals } = parseCommand(args, OPTIONS);
  const [id, ...scopes] = positionals;
  if (!id || scopes.length === 0) throw new UsageError('an id and at least one scope are needed');
  const notAfter = values['not-after'];
  let made: NewCaller;
  try {
    made = newCaller({ id, scopes, notAfter });
  } catch (error) {
    err((error as Error).message);
    return 1;
  }
  if (values.json) {
    out(JSON.stringify(made));
    return 0;
  }
  out(`Token of "${id}": hand it to the caller now; it is shown once and kept nowhere.\n`);
  out(`  ${made.token}\n`);
  out("The entry to add to the secret's callers (the token's SHA-256 only):\n");
  out(`  ${JSON.stringify(made.entry)}\n`);
  out('Rotating an existing caller? See docs/callers.md, "Rotating and revoking a token".');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
