/**
 * docs/catalogue.md's commands, held to the catalogue table: one for every catalogue route, at
 * its method and path (they run as printed against `npm start`: test/e2e holds that).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../lib/catalogue/table.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The method and path of each `curl` of the document's first bash block that calls `$B`. */
function commands(): { method: string; path: string }[] {
  const doc = readFileSync(path.join(ROOT, 'docs/catalogue.md'), 'utf8');
  const block = /```bash\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => /(^|\$\()curl /.test(line))
    .flatMap((line) => {
      const url = /\$B(\/[^\s"'?]*)/.exec(line);
      if (!url) return [];
      const method = /\s(-d|--data|--data-binary) /.test(line) ? 'POST' : 'GET';
      return [{ method, path: url[1]! }];
    });
}

describe("docs/catalogue.md's commands", () => {
  const sent = commands();

  it('call every catalogue route, at its method and path', () => {
    expect(sent.length).toBeGreaterThan(0);
    for (const entry of catalogue) {
      const template = new RegExp(`^${entry.path.replace(/\{\w+\}/g, '[^/]+')}$`);
      expect(
        sent.some((command) => command.method === entry.method && template.test(command.path)),
        `${entry.method} ${entry.path}`,
      ).toBe(true);
    }
  });
});
