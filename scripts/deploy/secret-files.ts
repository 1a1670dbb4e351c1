/**
 * Files that hold a secret, written all or none: every target is checked before any is written,
 * and each file is a new one, readable by its owner only, renamed into place.
 *
 * - The directory: created 0700 when it does not exist. An existing one that another user may
 *   write to (group or world writable, or owned by another user) is refused, not tightened: it
 *   may be a shared one such as /tmp, whose mode is not ours to change.
 * - A target that is a symbolic link, or not a file, is refused: nothing is written through a
 *   link. An existing file is replaced only with `force`; the new file is 0600 whatever the old
 *   one's mode was, since it is another file.
 * - Each file is written to a temporary name in the same directory (created with O_EXCL, mode
 *   0600), then renamed over its target. When a write fails, the temporary files are removed and
 *   no target was touched; when a rename fails, the files already renamed are removed too, and
 *   the error says which.
 */
import { lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/** One file to write: its name in the directory, and its text. */
export interface SecretFile {
  readonly name: string;
  readonly text: string;
}

/** What was found before anything was written: one line each, with its fix. */
export class SecretFilesRefused extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Whether another user than this one (or root) may write to a directory of this mode and owner. */
function othersMayWrite(mode: number, uid: number): string | undefined {
  if (mode & 0o022) {
    return `is writable by ${mode & 0o002 ? 'every user' : 'its group'} (mode ${(mode & 0o7777).toString(8)})`;
  }
  const self = process.getuid?.();
  if (self !== undefined && uid !== self && uid !== 0)
    return `belongs to another user (uid ${uid})`;
  return undefined;
}

/**
 * What keeps the files from being written into `dir` (one line each, with its fix), and whether
 * the directory must be made.
 */
export async function secretFileProblems(
  dir: string,
  files: readonly SecretFile[],
  force: boolean,
): Promise<{ problems: string[]; create: boolean }> {
  const problems: string[] = [];
  let found: Awaited<ReturnType<typeof stat>>;
  try {
    found = await stat(dir);
  } catch (error) {
    if (code(error) !== 'ENOENT') throw error;
    return { problems, create: true };
  }
  if (!found.isDirectory()) return { problems: [`${dir} is not a directory`], create: false };
  const shared = process.platform === 'win32' ? undefined : othersMayWrite(found.mode, found.uid);
  if (shared) {
    problems.push(
      `${dir} ${shared}: another user could replace the secret's files there; name a new directory (split-secret creates it, 0700) or run \`chmod go-w ${dir}\` if it is yours.`,
    );
  }
  for (const file of files) {
    const target = path.join(dir, file.name);
    let entry: Awaited<ReturnType<typeof lstat>>;
    try {
      entry = await lstat(target);
    } catch (error) {
      if (code(error) === 'ENOENT') continue;
      throw error;
    }
    if (entry.isSymbolicLink()) {
      problems.push(
        `${target} is a symbolic link: remove it (the secret is never written through a link).`,
      );
    } else if (!entry.isFile()) {
      problems.push(`${target} exists and is not a file: remove it, or name another directory.`);
    } else if (!force) {
      problems.push(`${target} exists: remove it, or pass --force`);
    }
  }
  return { problems, create: false };
}

/** Writes `text` to a new file at `file` (O_EXCL, 0600), synced to disk. */
async function writeNew(file: string, text: string): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    // The mode open gives is masked by the umask; this one is exact.
    await handle.chmod(0o600);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const removeQuietly = (file: string) => unlink(file).catch(() => undefined);

/**
 * Writes every file into `dir`, or none: throws SecretFilesRefused, having written nothing, when
 * a check fails, and any other error with what it removed when a write fails half way. Returns the
 * paths written, in order.
 */
export async function writeSecretFiles(
  dir: string,
  files: readonly SecretFile[],
  options: { force?: boolean | undefined } = {},
): Promise<string[]> {
  const { problems, create } = await secretFileProblems(dir, files, options.force === true);
  if (problems.length > 0) throw new SecretFilesRefused(problems);
  if (create) await mkdir(dir, { recursive: true, mode: 0o700 });
  // O_EXCL refuses a name that exists, a link included: a left-over stops the run, named.
  const suffix = `${process.pid}.tmp`;
  const staged: { temp: string; target: string }[] = [];
  try {
    for (const file of files) {
      const temp = path.join(dir, `.${file.name}.${suffix}`);
      await writeNew(temp, file.text);
      staged.push({ temp, target: path.join(dir, file.name) });
    }
  } catch (error) {
    await Promise.all(staged.map(({ temp }) => removeQuietly(temp)));
    throw new Error(`${(error as Error).message}: nothing written (the files were not replaced)`, {
      cause: error,
    });
  }
  const placed: string[] = [];
  try {
    for (const { temp, target } of staged) {
      await rename(temp, target);
      placed.push(target);
    }
  } catch (error) {
    await Promise.all([
      ...staged.slice(placed.length).map(({ temp }) => removeQuietly(temp)),
      ...placed.map(removeQuietly),
    ]);
    const removed = placed.length > 0 ? `; removed ${placed.join(', ')}, written before it` : '';
    const lost = options.force && placed.length > 0 ? ' (the files they replaced are gone)' : '';
    throw new Error(`${(error as Error).message}${removed}${lost}`, { cause: error });
  }
  return placed;
}
