/** `npm run check:links` (scripts/check-links.ts): relative links and their headings. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorOf, anchorsOf, brokenLinksOf, documents } from '../../../scripts/check-links.ts';

describe('the relative links of the docs', () => {
  it("makes GitHub's anchors of headings", () => {
    expect(anchorOf('6. Work that grows')).toBe('6-work-that-grows');
    expect(
      anchorOf('Figures (2026-11-23, third pass): cold start as deployed, and the floor'),
    ).toBe('figures-2026-11-23-third-pass-cold-start-as-deployed-and-the-floor');
    expect(anchorOf('`GET /docs` in a browser')).toBe('get-docs-in-a-browser');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### B ###\n')]).toEqual([
      'a',
      'a-1',
      'b',
    ]);
  });

  it('finds a missing file and a missing heading, and skips code and other sites', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'links-'));
    await mkdir(path.join(root, 'docs'));
    await writeFile(path.join(root, 'docs', 'a.md'), '# Title\n\n## Work that grows\n');
    const readme = path.join(root, 'README.md');
    await writeFile(
      readme,
      [
        '[ok](docs/a.md#work-that-grows) [ok too](docs/a.md) [site](https://example.com/x)',
        '[gone](docs/b.md) [moved](docs/a.md#5-work-that-grows)',
        '`[not a link](docs/c.md)`',
        '```',
        '[in code](docs/d.md)',
        '```',
      ].join('\n'),
    );
    expect(documents(root)).toHaveLength(2);
    expect(brokenLinksOf(readme, root)).toEqual([
      { file: 'README.md', line: 2, target: 'docs/b.md', why: 'no such file' },
      {
        file: 'README.md',
        line: 2,
        target: 'docs/a.md#5-work-that-grows',
        why: 'no heading #5-work-that-grows in docs/a.md',
      },
    ]);
  });

  it('finds none in this repository', () => {
    expect(documents().flatMap((file) => brokenLinksOf(file))).toEqual([]);
  });
});
