/**
 * npm start's demo secret for an emulator on another port than 4010: a copy in .local/ whose
 * action and trigger URLs name that emulator (emulator/demo-secret.json names 4010). The copy
 * follows the demo secret while npm start runs, so that a caller added there works on any port
 * as it does on 4010 (docs/callers.md, "Adding a caller"), and is removed when npm start stops.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface FollowedCopy {
  readonly file: string;
  /** Stops following and deletes the copy; synchronous, so that a hasty exit runs it too. */
  remove(): void;
}

/**
 * Writes `render(text of source)` to `file`, and again whenever the source's text changes
 * (checked every `intervalMs`). A source that `render` refuses (a JSON error, mid-edit) is
 * copied as it is: the functions then refuse it as they would refuse the source itself. Each
 * write replaces the copy whole (a rename), so that no function reads half of one.
 */
export function followedCopy(
  source: string,
  file: string,
  render: (text: string) => string,
  intervalMs = 500,
): FollowedCopy {
  mkdirSync(path.dirname(file), { recursive: true });
  let copied: string | undefined;
  const follow = () => {
    const text = readFileSync(source, 'utf8');
    if (text === copied) return;
    let rendered: string;
    try {
      rendered = render(text);
    } catch {
      rendered = text;
    }
    const next = `${file}.${process.pid}.next`;
    writeFileSync(next, rendered, { mode: 0o600 });
    renameSync(next, file);
    copied = text;
  };
  follow();
  const timer = setInterval(() => {
    try {
      follow();
    } catch {
      // The source is gone or unreadable for a moment (an editor saving it): the copy stays.
    }
  }, intervalMs);
  timer.unref();
  return {
    file,
    remove: () => {
      clearInterval(timer);
      rmSync(file, { force: true });
    },
  };
}
