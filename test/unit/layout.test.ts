/**
 * The unit tests mirror lib/: every module `lib/<folder>/<name>.ts` has its test at
 * `test/unit/lib/<folder>/<name>.test.ts`, which loads it, except the modules docs/testing.md lists under
 * "Modules without a unit test, and why" (types only, a constant) and, while a module's test is
 * being written elsewhere, under "Modules whose unit test is still to come": a section that is
 * there only while it lists a module (issue 24's list is empty, and gone). The lists are read
 * from the document, so that adding a module there is the one edit an exemption takes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TESTING_DOC = path.join(ROOT, 'docs/testing.md');

/** The most modules that may do without a test of their own. */
const MAX_WITHOUT_TEST = 10;

/** Files under a folder of the repository, as repository paths, sorted. */
function filesUnder(folder: string, suffix: string): string[] {
  return (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/')))
    .filter((file) => file.endsWith(suffix))
    .sort();
}

/** The mirrored test of a module: lib/<name>.ts -> test/unit/lib/<name>.test.ts (.d.ts alike). */
const testOf = (module: string) => `test/unit/${module.replace(/(\.d)?\.ts$/, '')}.test.ts`;

/** The module a test under test/unit/lib/ (or test/unit/sls/) mirrors. */
const moduleOf = (test: string) => test.replace(/^test\/unit\//, '').replace(/\.test\.ts$/, '.ts');

interface Exemption {
  readonly module: string;
  readonly reason: string;
}

/**
 * The list under a `### <heading>` of the document: its items "- `lib/...`: reason", up to the
 * next heading. A heading that is not there is an empty list.
 */
function exemptionsUnder(markdown: string, heading: string): Exemption[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `### ${heading}`);
  if (start < 0) return [];
  const exemptions: Exemption[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    const item = /^- `([^`]+)`(?::\s*(.*))?$/.exec(line.trimEnd());
    if (item) exemptions.push({ module: item[1] ?? '', reason: (item[2] ?? '').trim() });
  }
  return exemptions;
}

const WITHOUT_TEST = 'Modules without a unit test, and why';
/** Optional: absent when no module's test is being written elsewhere. */
const STILL_TO_COME = 'Modules whose unit test is still to come';

/** Whether the document has a `### <heading>` section. */
const hasSection = (markdown: string, heading: string) =>
  markdown.split('\n').some((line) => line.trim() === `### ${heading}`);

const doc = readFileSync(TESTING_DOC, 'utf8');
const withoutTest = exemptionsUnder(doc, WITHOUT_TEST);
const stillToCome = exemptionsUnder(doc, STILL_TO_COME);
const exempt = [...withoutTest, ...stillToCome];
const modules = filesUnder('lib', '.ts');
const tests = filesUnder('test/unit/lib', '.test.ts');

describe('the unit tests mirror lib/', () => {
  it('has a test at the mirrored path for every module of lib/, or the module is listed in docs/testing.md', () => {
    const listed = new Set(exempt.map((entry) => entry.module));
    const missing = modules.filter(
      (module) => !listed.has(module) && !existsSync(path.join(ROOT, testOf(module))),
    );
    expect(
      missing,
      'write test/unit/<module>.test.ts, or list the module in docs/testing.md',
    ).toEqual([]);
  });

  it('loads in each mirrored test the module it is named after', () => {
    const unloaded = tests.filter((test) => {
      const specifier = path.posix.relative(path.posix.dirname(test), moduleOf(test));
      return !readFileSync(path.join(ROOT, test), 'utf8').includes(`'${specifier}'`);
    });
    expect(unloaded).toEqual([]);
  });

  it('has no test under test/unit/lib/ for a module that is not there (renamed or removed)', () => {
    const orphans = tests.filter((test) => !existsSync(path.join(ROOT, moduleOf(test))));
    expect(orphans).toEqual([]);
  });
});

describe("the tests of sls/, the deploy's code, mirror it", () => {
  // sls/<name>.ts <- test/unit/sls/<name>.test.ts, as for lib/.
  const slsTests = filesUnder('test/unit/sls', '.test.ts');

  it('has a test under test/unit/sls/ only for a module of sls/ that is there', () => {
    expect(slsTests.length).toBeGreaterThan(0);
    expect(slsTests.filter((test) => !existsSync(path.join(ROOT, moduleOf(test))))).toEqual([]);
  });

  it('loads in each mirrored test the module it is named after', () => {
    const unloaded = slsTests.filter((test) => {
      const specifier = path.posix.relative(path.posix.dirname(test), moduleOf(test));
      return !readFileSync(path.join(ROOT, test), 'utf8').includes(`'${specifier}'`);
    });
    expect(unloaded).toEqual([]);
  });
});

describe("docs/testing.md's lists of modules without a unit test", () => {
  it('are there, and name modules of lib/ that exist, each once', () => {
    expect(withoutTest.length).toBeGreaterThan(0);
    const names = exempt.map((entry) => entry.module);
    expect(names.filter((name) => !modules.includes(name))).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('hold "still to come" only while it lists a module: an empty section goes', () => {
    if (hasSection(doc, STILL_TO_COME)) expect(stillToCome.length).toBeGreaterThan(0);
    else expect(stillToCome).toEqual([]);
  });

  it('give a reason for each module', () => {
    expect(exempt.filter((entry) => entry.reason === '').map((entry) => entry.module)).toEqual([]);
  });

  it('name no module that has its test by now: its line goes', () => {
    const tested = exempt.filter((entry) => existsSync(path.join(ROOT, testOf(entry.module))));
    expect(tested.map((entry) => entry.module)).toEqual([]);
  });

  it(`let at most ${MAX_WITHOUT_TEST} modules do without a test for good`, () => {
    expect(withoutTest.length).toBeLessThanOrEqual(MAX_WITHOUT_TEST);
  });
});

describe('exemptionsUnder', () => {
  it('reads the items of the list under its heading, up to the next heading', () => {
    const markdown = [
      '### Other',
      '- `lib/not/this.ts`: elsewhere',
      '### Modules without a unit test, and why',
      '',
      'Some words.',
      '',
      '- `lib/core/a.ts`: types only',
      '- `lib/core/b.ts`:',
      '- `lib/core/c.ts`',
      '  - `lib/core/nested.ts`: not an item of the list',
      '## Next',
      '- `lib/core/d.ts`: after the section',
    ].join('\n');
    expect(exemptionsUnder(markdown, 'Modules without a unit test, and why')).toEqual([
      { module: 'lib/core/a.ts', reason: 'types only' },
      { module: 'lib/core/b.ts', reason: '' },
      { module: 'lib/core/c.ts', reason: '' },
    ]);
    expect(exemptionsUnder(markdown, 'Absent')).toEqual([]);
  });

  it('reads a list whose section is not there as empty', () => {
    const markdown = ['### Modules without a unit test, and why', '- `lib/core/a.ts`: types'].join(
      '\n',
    );
    expect(hasSection(markdown, STILL_TO_COME)).toBe(false);
    expect(exemptionsUnder(markdown, STILL_TO_COME)).toEqual([]);
    expect(hasSection(markdown, WITHOUT_TEST)).toBe(true);
  });
});
