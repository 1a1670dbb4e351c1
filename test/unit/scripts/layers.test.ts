/**
 * The layers of lib/ (docs/architecture.md, "Layers"), as `npm run lint` enforces them: the table
 * is read by scripts/layers.ts and made into dependency-cruiser's rules by .dependency-cruiser.ts.
 * In a scratch copy of the repository's rules and document, with a folder added by one row of
 * the table (as the document says a folder is added), every row imports every other: the lint's
 * command reports exactly the imports the table forbids, whatever the import's form, and lets the
 * others pass. The bans beside the layers (the emulator, undici's root, middy in core, the
 * routes' docs, zod/mini's named `z`) are probed the same way.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layer, mayImport, readLayers } from '../../../scripts/layers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
const DOC = 'docs/architecture.md';
const architecture = readFileSync(path.join(ROOT, DOC), 'utf8');

/** The row a test adds, as a developer adding a folder of lib/ would, and its folder. */
const ADDED = 'lib/archive/';
const ADDED_ROW =
  '| `archive/` | `core/`, `upstream/` | added by test/unit/scripts/layers.test.ts |';

/** The document with one more row in its layers table, before `functions/`'s. */
function withAddedRow(markdown: string): string {
  const at = markdown.indexOf('| `functions/` |');
  expect(at, `${DOC}: the layers table has a row for functions/`).toBeGreaterThan(0);
  return `${markdown.slice(0, at)}${ADDED_ROW}\n${markdown.slice(at)}`;
}

/** The probe module of a row's path: `<folder>/probe.ts`, or the row's module itself. */
const probeOf = (where: string) => (where.endsWith('/') ? `${where}probe.ts` : where);

/** The specifier by which one file imports another, as the sources write it. */
function specifier(from: string, to: string): string {
  const relative = path.posix.relative(path.posix.dirname(from), to);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** The forms of an import the rules must see, taken in turn. */
const FORMS = [
  (spec: string, n: number) => `import { probe as probe${n} } from '${spec}';\nvoid probe${n};`,
  (spec: string, n: number) =>
    `import type { Probe as Probe${n} } from '${spec}';\nexport type T${n} = Probe${n};`,
  (spec: string, n: number) => `export { probe as reexported${n} } from '${spec}';`,
  (spec: string, n: number) => `export const later${n} = () => import('${spec}');`,
  (spec: string) => `import '${spec}';`,
];

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

/** The commands of package.json's `lint`: biome's, then dependency-cruiser's. */
const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const [BIOME_LINT = '', IMPORT_RULES = ''] = (scripts['lint'] ?? '').split(' && ');

/** Runs a command of the lint in a folder, as npm runs it. */
async function runIn(cwd: string, command: string): Promise<{ code: number; output: string }> {
  const env = {
    ...process.env,
    PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env['PATH']}`,
    NO_COLOR: '1',
  };
  try {
    const { stdout, stderr } = await run('sh', ['-c', command], { cwd, env, maxBuffer: 1 << 26 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** The violations in dependency-cruiser's `err-long` report: "error <rule>: <from> → <to>". */
function violationsIn(output: string): Violation[] {
  return [...output.matchAll(/^\s*error (.+?): (\S+) → (\S+)$/gm)].map(([, rule, from, to]) => ({
    rule: rule!,
    from: from!,
    // A package reached through the scratch folder's node_modules link, as from the repository.
    to: to!.replace(/^.*node_modules\//, 'node_modules/'),
  }));
}

/**
 * A scratch repository: the rules, the document (given), node_modules linked, and an empty
 * probe module for each path (folder or module) of the table.
 */
function scratchRepository(markdown: string, paths: readonly string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'layers-'));
  cpSync(path.join(ROOT, '.dependency-cruiser.ts'), path.join(dir, '.dependency-cruiser.ts'));
  mkdirSync(path.join(dir, 'scripts'));
  cpSync(path.join(ROOT, 'scripts/layers.ts'), path.join(dir, 'scripts/layers.ts'));
  mkdirSync(path.join(dir, 'docs'));
  writeFileSync(path.join(dir, DOC), markdown);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const where of paths) write(dir, probeOf(where), 'export {};\n');
  return dir;
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

describe('the layers table of docs/architecture.md', () => {
  const layers = readLayers();
  const byName = new Map(layers.map((layer) => [layer.name, layer]));
  const may = (from: string, to: string) => mayImport(byName.get(from)!, byName.get(to)!);

  it('has a row for every folder and module at the top of lib/, and for functions/', () => {
    // readLayers throws on a folder without a row; this is what it read.
    expect(layers.map((layer) => layer.name)).toEqual(
      expect.arrayContaining([
        'core/',
        'upstream/',
        'secrets/',
        'runtime.ts',
        'usage/',
        'http/',
        'functions/',
      ]),
    );
    expect(byName.get('runtime.ts')!.path).toBe('lib/runtime.ts');
    expect(byName.get('functions/')!.path).toBe('functions/');
  });

  it('reads what the prose says (the rules are made from this reading)', () => {
    expect(byName.get('core/')!.mayImport).toEqual([]);
    expect(may('upstream/', 'core/')).toBe(true);
    expect(may('upstream/', 'secrets/')).toBe(false);
    expect(may('usage/', 'secrets/')).toBe(true);
    expect(may('usage/', 'upstream/')).toBe(false);
    expect(may('scan-jobs/', 'usage/')).toBe(true);
    expect(may('scan-jobs/', 'execution/')).toBe(false);
    expect(may('webhooks/', 'execution/')).toBe(true);
    expect(may('watcher/', 'scan-jobs/')).toBe(true);
    expect(may('watcher/', 'webhooks/')).toBe(false);
    expect(may('http/', 'watcher/')).toBe(true);
    expect(may('http/', 'functions/')).toBe(false);
    expect(may('functions/', 'runtime.ts')).toBe(true);
  });

  it('refuses a row that names what has no row, a folder without a row, and no table', () => {
    const paths = layers.map((layer) => layer.path);
    /** What reading the table says in a scratch repository with these paths. */
    const reading = (markdown: string, more: string[] = []) => {
      const dir = scratchRepository(markdown, [...paths, ...more]);
      try {
        return readLayers(dir);
      } catch (error) {
        return (error as Error).message;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    expect(reading(architecture)).toEqual(layers);
    const typo = architecture.replace('| `upstream/` | `core/` |', '| `upstream/` | `cor/` |');
    expect(reading(typo)).toMatch(/`upstream\/` may import `cor\/`, which has no row/);
    expect(reading(architecture, [ADDED])).toMatch(/lib\/archive\/: no row in the layers table/);
    expect(reading('# no layers here\n')).toMatch(/no "## Layers" section/);
    expect(reading(withAddedRow(architecture))).toMatch(/names lib\/archive\/, not in the repos/);
  });
});

describe('npm run lint', () => {
  it('runs biome, then the import rules with this configuration', () => {
    expect(BIOME_LINT).toBe('biome lint .');
    expect(IMPORT_RULES).toMatch(
      /^depcruise --config \.dependency-cruiser\.ts --output-type err-long lib functions emulator$/,
    );
  });

  describe('in a scratch repository where every row imports every other', () => {
    const markdown = withAddedRow(architecture);
    let layers: Layer[] = [];
    let dir: string;
    let result: { code: number; output: string };
    /** The violations the table and the other bans call for. */
    const expected: Violation[] = [];

    beforeAll(async () => {
      dir = scratchRepository(markdown, [...readLayers().map((layer) => layer.path), ADDED]);
      layers = readLayers(dir);
      let n = 0;
      for (const from of layers) {
        const lines = ['export const probe = 1;', 'export type Probe = number;'];
        for (const to of layers) {
          if (to === from) continue;
          lines.push(FORMS[n % FORMS.length]!(specifier(probeOf(from.path), probeOf(to.path)), n));
          n += 1;
          if (!mayImport(from, to)) {
            const [source, target] = [probeOf(from.path), probeOf(to.path)];
            expected.push({ rule: `layer ${from.path}`, from: source, to: target });
          }
        }
        write(dir, probeOf(from.path), `${lines.join('\n')}\n`);
      }
      // The bans beside the layers, with what stays allowed (undici's types, middy outside core).
      write(
        dir,
        'emulator/probe.ts',
        "import { probe } from '../lib/core/probe.js';\nvoid probe;\n",
      );
      write(
        dir,
        'lib/http/bans.ts',
        [
          "import { Agent } from 'undici';",
          "import middy from '@middy/core';",
          "import { probe } from '../../emulator/probe.js';",
          'void [Agent, middy, probe];',
        ].join('\n'),
      );
      write(
        dir,
        'lib/http/undici-types.ts',
        "import type { Dispatcher } from 'undici';\nexport type D = Dispatcher | typeof import('undici').Pool;\n",
      );
      write(dir, 'lib/core/bans.ts', "import middy from '@middy/core';\nvoid middy;\n");
      write(
        dir,
        'functions/bans.ts',
        "export const emulator = () => import('../emulator/probe.js');\n",
      );
      // The routes' docs: the OpenAPI document reads them, and any module may name their types.
      write(
        dir,
        'lib/http/routes/docs/index.ts',
        'export const docs = 1;\nexport type Docs = 1;\n',
      );
      write(
        dir,
        'lib/http/openapi.ts',
        "import { docs } from './routes/docs/index.js';\nvoid docs;\n",
      );
      write(
        dir,
        'lib/http/docs-ban.ts',
        "import type { Docs } from './routes/docs/index.js';\nimport { docs } from './routes/docs/index.js';\nexport type D = Docs;\nvoid docs;\n",
      );
      expected.push(
        { rule: 'no service in the emulator', from: 'emulator/probe.ts', to: 'lib/core/probe.ts' },
        { rule: "no undici's root", from: 'lib/http/bans.ts', to: 'node_modules/undici/index.js' },
        { rule: 'no emulator in the service', from: 'lib/http/bans.ts', to: 'emulator/probe.ts' },
        {
          rule: 'no middy in core',
          from: 'lib/core/bans.ts',
          to: 'node_modules/@middy/core/index.js',
        },
        { rule: 'no emulator in the service', from: 'functions/bans.ts', to: 'emulator/probe.ts' },
        {
          rule: 'route docs for the document only',
          from: 'lib/http/docs-ban.ts',
          to: 'lib/http/routes/docs/index.ts',
        },
      );
      result = await runIn(dir, IMPORT_RULES);
    }, 120_000);

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('fails', () => {
      expect(result.code, result.output).not.toBe(0);
    });

    it('reports every import the table forbids, in every form, and no other', () => {
      const key = (v: Violation) => `${v.rule}: ${v.from} -> ${v.to}`;
      expect(violationsIn(result.output).map(key).sort()).toEqual(expected.map(key).sort());
      // Both kinds are there: forbidden pairs, and allowed pairs that passed.
      const pairs = layers.length * (layers.length - 1);
      const forbidden = expected.filter((v) => v.rule.startsWith('layer ')).length;
      expect(forbidden).toBeGreaterThan(pairs / 3);
      expect(pairs - forbidden).toBeGreaterThan(pairs / 4);
    });

    it('says why, and where the rule is written', () => {
      const prose = result.output.replace(/\s+/g, ' ');
      expect(prose).toContain(
        'lib/core/ may import itself, nothing else of lib/ or functions/: imports run one way only (the layers table of docs/architecture.md)',
      );
      expect(prose).toContain(
        'lib/watcher/ may import itself and `core/`, `upstream/`, `secrets/`, `runtime.ts`, `usage/`, `scan-jobs/`, nothing else',
      );
    });

    it('holds a folder added by one row of the table to that row', () => {
      const edges = violationsIn(result.output).map((v) => `${v.from} -> ${v.to}`);
      expect(edges).toEqual(
        expect.arrayContaining([
          'lib/archive/probe.ts -> lib/http/probe.ts',
          'lib/core/probe.ts -> lib/archive/probe.ts',
        ]),
      );
      expect(edges).not.toContain('lib/archive/probe.ts -> lib/upstream/probe.ts');
    });
  });

  it('fails on a folder of lib/ that the table does not name', async () => {
    const dir = scratchRepository(architecture, [
      ...readLayers().map((layer) => layer.path),
      ADDED,
    ]);
    try {
      const { code, output } = await runIn(dir, IMPORT_RULES);
      expect(code).not.toBe(0);
      expect(output).toMatch(
        /lib\/archive\/: no row in the layers table of docs\/architecture\.md/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails on zod/mini's named `z` anywhere, and takes its namespace import (biome)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zod-ban-'));
    try {
      cpSync(path.join(ROOT, 'biome.json'), path.join(dir, 'biome.json'));
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      const named = "import { z } from 'zod/mini';\nexport const s = z.string();\n";
      const namespace = "import * as z from 'zod/mini';\nexport const s = z.string();\n";
      const folders = ['lib/core', 'lib/http', 'functions', 'emulator', 'scripts', 'test/unit'];
      for (const folder of folders) {
        write(dir, `${folder}/named.ts`, named);
        write(dir, `${folder}/namespace.ts`, namespace);
      }
      const { code, output } = await runIn(dir, BIOME_LINT);
      expect(code, output).not.toBe(0);
      for (const folder of folders) {
        expect(output).toContain(`${folder}/named.ts:1:10 lint/style/noRestrictedImports`);
        expect(output).not.toContain(`${folder}/namespace.ts`);
      }
      expect(output).toContain('the named `z` export defeats tree shaking');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
