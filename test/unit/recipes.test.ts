/**
 * The recipes of docs/architecture.md ("## Recipes") cannot lie. "Add a route" and "Add a
 * catalogue API" are carried out for real in a scratch copy of the repository (its
 * node_modules linked, not copied): the steps are read from the document, and for each the file
 * it names is written as this test knows to write it (an unknown step fails); then what was
 * written is typechecked, and the tests that hold a route to the rest of the package run there,
 * with the new routes' own: the function table, the registry, the roles and serverless.yml's
 * functions made from it, the README, the docs and their generated tables, the caller tests
 * against the emulator. A step that is a command (`npm run docs`) runs there. A step missing
 * from a recipe is a file not written, and those fail. "Add a route" touches at most seven files. The other recipes name files
 * that are there, and "The stack, in order" is the order of lib/http/route-stack.ts.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string, root = ROOT) => readFileSync(path.join(root, file), 'utf8');
const ARCHITECTURE = read('docs/architecture.md');

interface Step {
  /** The files it touches: the backticked paths it starts with, placeholders and all. */
  readonly files: string[];
  readonly text: string;
}

/** A recipe's numbered steps, each with the files it starts with (before its first colon). */
function recipe(title: string, markdown = ARCHITECTURE): Step[] {
  const lines = markdown.slice(markdown.indexOf('## Recipes')).split('\n');
  const start = lines.findIndex((line) => line.startsWith(`**${title}`));
  if (start < 0) throw new Error(`docs/architecture.md has no recipe "${title}"`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('**') || line.startsWith('## ')) break;
    const item = /^\d+\. (.*)$/.exec(line);
    if (item) items.push(item[1]!);
    else if (items.length > 0 && /^ {3}\S/.test(line)) items.push(`${items.pop()} ${line.trim()}`);
  }
  return items.map((text) => {
    const lead = /^((?:`[^`]+`(?:, )?)+):/.exec(text)?.[1] ?? '';
    return { files: [...lead.matchAll(/`([^`]+)`/g)].map((match) => match[1]!), text };
  });
}

/** The values a recipe gives its placeholders: "`<area>` is ..., `jobs`". */
function placeholdersOf(title: string, markdown = ARCHITECTURE): Record<string, string> {
  const heading = markdown
    .slice(markdown.indexOf('## Recipes'))
    .split('\n**')
    .find((part) => part.startsWith(title));
  const intro = heading?.slice(0, heading.search(/\n1\. /)) ?? '';
  return Object.fromEntries(
    [...intro.matchAll(/`<(\w+)>`\s(?:is|the)\s[^;)]*?,\s+`([^`]+)`/g)].map((m) => [m[1]!, m[2]!]),
  );
}

const instantiated = (file: string, values: Record<string, string>) =>
  file.replace(/<(\w+)>/g, (whole, name: string) => values[name] ?? whole);

// ---------------------------------------------------------------------------------------------
// What each step writes, by the file it names, in a scratch copy `dir`.

type Edit = (dir: string) => void;

function edit(dir: string, file: string, change: (text: string) => string): void {
  const before = read(file, dir);
  const after = change(before);
  if (after === before) throw new Error(`${file}: the recipe test's edit found nothing to change`);
  writeFileSync(path.join(dir, file), after);
}
/** Inserts text before (or after) the one place an anchor is; fails where it is not. */
const insert =
  (file: string, anchor: string, text: string, where: 'before' | 'after' = 'before'): Edit =>
  (dir) =>
    edit(dir, file, (source) => {
      if (!source.includes(anchor))
        throw new Error(`${file}: no "${anchor.trim()}" to write beside`);
      return source.replace(anchor, where === 'before' ? `${text}${anchor}` : `${anchor}${text}`);
    });
const create =
  (file: string, text: (dir: string) => string): Edit =>
  (dir) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text(dir));
  };
const all =
  (...edits: Edit[]): Edit =>
  (dir) => {
    for (const each of edits) each(dir);
  };

/** "Add a route": GET /jobs/{instanceId}/status, a scan job's status, served by a function of its own. */
const ADD_A_ROUTE: Record<string, Edit> = {
  'lib/http/routes/jobs.ts': insert(
    'lib/http/routes/jobs.ts',
    '  searchJobs: defineRoute({',
    `  getJobStatus: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    method: 'GET',
    path: '/jobs/{instanceId}/status',
    summary: "A scan job's status",
    input: { path: instancePathSchema },
  }),
`,
  ),
  'lib/scan-jobs/client.ts': all(
    insert(
      'lib/scan-jobs/client.ts',
      '  report(instanceId: string, call: CallContext): Promise<UpstreamAnswer> {',
      `  status(instanceId: string, call: CallContext): Promise<UpstreamAnswer> {
    return hinted(
      'report',
      this.gateway.call({ method: 'GET', path: jobPath(instanceId, 'status') }, call),
    );
  }

`,
    ),
    (dir) =>
      edit(dir, 'lib/scan-jobs/client.ts', (source) =>
        source.replace(
          "action: 'cancel' | 'stop' | 'report'): string {",
          "action: 'cancel' | 'stop' | 'report' | 'status'): string {",
        ),
      ),
  ),
  'functions/jobs/status.ts': create(
    'functions/jobs/status.ts',
    () => `/** GET /jobs/{instanceId}/status */

import { bind } from '../../lib/http/bind.ts';
import { admissionOf, callerParts, pathParams } from '../../lib/http/parts.ts';
import { passThrough } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.ts';

const runtime = getRuntime();
const scanJobs = scanJobsClientOf(runtime);

export const handler = bind(
  jobRoutes.getJobStatus,
  async (request) => passThrough(await scanJobs.status(request.path.instanceId, request.call), 200),
  { ...callerParts(runtime), admission: admissionOf(runtime), pathParams },
);
`,
  ),
  'sls/functions.ts': insert(
    'sls/functions.ts',
    '  {\n    trigger: { routes: [jobRoutes.searchJobs] },',
    `  {
    trigger: { routes: [jobRoutes.getJobStatus] },
    handler: 'functions/jobs/status.ts',
    ...SCAN_JOBS,
  },
`,
  ),
  'emulator/scan-jobs/module.ts': insert(
    'emulator/scan-jobs/module.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the module's own template literal
    "    {\n      method: 'POST',\n      path: `${jobs}/search`,",
    `    {
      method: 'GET',
      path: \`\${jobs}/{instanceId}/status\`,
      authenticate,
      handle: ({ params }) => {
        const job = store.get(instanceIdOf(params));
        return job ? endpointJson(200, { instanceNo: job.instanceNo, status: job.status }) : apiCallFail();
      },
    },
`,
  ),
  'events/jobs-status.json': create('events/jobs-status.json', (dir) =>
    read('events/jobs-report.json', dir).replaceAll('/report', '/status'),
  ),
  'test/unit/lib/http/routes/jobs.test.ts': all(
    insert(
      'test/unit/lib/http/routes/jobs.test.ts',
      "      ['searchJobs', 'POST /jobs/search'],\n",
      "      ['getJobStatus', 'GET /jobs/{instanceId}/status'],\n",
    ),
    insert(
      'test/unit/lib/http/routes/jobs.test.ts',
      "      searchJobs: { scope: 'jobs:read' },\n",
      "      getJobStatus: { scope: 'jobs:read' },\n",
    ),
  ),
};

/** "Add a catalogue API": GET /shorturl/expand, the URL a short URL stands for. */
const ADD_A_CATALOGUE_API: Record<string, Edit> = {
  'lib/catalogue/utility.ts': insert(
    'lib/catalogue/utility.ts',
    '  defineEntry<TrendsBody>({',
    `  defineEntry<undefined, ShortUrlQuery>({
    id: 'expandShortUrl',
    api: 'shorturl',
    method: 'GET',
    path: '/shorturl/expand',
    summary: 'The URL a short URL stands for',
    upstream: { method: 'GET', paths: ['/util/v1/shorturl/expand'] },
    sends: 'query',
    answers: { kind: 'json', contentTypes: ['application/json'] },
    idempotent: true,
    query: shortUrlQuerySchema,
    toUpstream: ({ query }) => ({ params: [['url', query.url]] }),
  }),
`,
  ),
  'emulator/catalogue/shorturl.ts': all(
    insert(
      'emulator/catalogue/shorturl.ts',
      'export function shortUrlRoutes(authenticate: Authenticator): ApiRoute[] {',
      `/** The URL a short URL of this emulator stands for: made up from its hash, as it keeps none. */
function expand(request: GatewayRequest): GatewayResponse {
  const url = request.query.get('url') ?? '';
  if (!url.startsWith(SHORT_URL_BASE)) return badRequest('url must be a short URL');
  const hash = url.slice(SHORT_URL_BASE.length);
  const orgUrl = \`https://example.com/\${hash}\`;
  return endpointJson(200, { message: 'ok', result: { url, orgUrl }, code: '200' });
}

`,
    ),
    (dir) =>
      edit(dir, 'emulator/catalogue/shorturl.ts', (source) =>
        source
          .replace(
            "  return ['GET', 'POST'].map((method) => ({",
            "  const shortening = ['GET', 'POST'].map((method): ApiRoute => ({",
          )
          .replace(
            '    handle: ({ request }) => shorten(request),\n  }));\n}',
            `    handle: ({ request }) => shorten(request),
  }));
  const expanding: ApiRoute = {
    method: 'GET',
    path: '/util/v1/shorturl/expand',
    authenticate,
    handle: ({ request }) => expand(request),
  };
  return [...shortening, expanding];
}`,
          ),
      ),
  ),
  'test/helpers/route-requests.ts': insert(
    'test/helpers/route-requests.ts',
    "  'POST /shorturl':",
    "  'GET /shorturl/expand': { query: [['url', 'https://me2.do/5Q9GnxOt']] },\n",
  ),
  'docs/catalogue.md': insert(
    'docs/catalogue.md',
    'curl -H "$T" -H "$J" -d \'{"url":"https://example.com/a/long/path"}\' $B/shorturl\n',
    'curl -H "$T" "$B/shorturl/expand?url=https://me2.do/5Q9GnxOt"\n',
    'after',
  ),
  'test/unit/lib/catalogue/utility.test.ts': all(
    insert(
      'test/unit/lib/catalogue/utility.test.ts',
      "  ['POST /shorturl', 'body', { url: 'https://example.com/a?b=c#d' }],\n",
      "  ['GET /shorturl/expand', 'query', { url: 'https://me2.do/5Q9GnxOt' }],\n",
    ),
    insert(
      'test/unit/lib/catalogue/utility.test.ts',
      "  ['short URL ftp', 'POST /shorturl', 'body', { url: 'ftp://example.com/a' }, 'url'],\n",
      "  ['short URL to expand, relative', 'GET /shorturl/expand', 'query', { url: '/a' }, 'url'],\n",
    ),
  ),
  'test/unit/lib/catalogue/table.test.ts': all(
    insert(
      'test/unit/lib/catalogue/table.test.ts',
      "        'POST /trends',\n",
      "        'GET /shorturl/expand',\n",
    ),
    insert(
      'test/unit/lib/catalogue/table.test.ts',
      "        '/datalab/v1/search',\n",
      "        '/util/v1/shorturl/expand',\n",
    ),
  ),
  'test/unit/emulator/catalogue/shorturl.test.ts': (dir) =>
    writeFileSync(
      path.join(dir, 'test/unit/emulator/catalogue/shorturl.test.ts'),
      `${read('test/unit/emulator/catalogue/shorturl.test.ts', dir)}
describe('GET /util/v1/shorturl/expand', () => {
  const emulator = emulatorForSuite();

  it('answers the URL a short URL stands for, and 400 for another URL', async () => {
    const expand = (url: string) =>
      catalogueFetch(emulator, 'GET', \`/util/v1/shorturl/expand?url=\${encodeURIComponent(url)}\`);
    const found = await expand('https://me2.do/5Q9GnxOt');
    expect(await jsonOf(found)).toMatchObject({ result: { url: 'https://me2.do/5Q9GnxOt' } });
    expect((await expand('https://a.b/c')).status).toBe(400);
  });
});
`,
    ),
};

const CARRIED_OUT = [
  ['Add a route', ADD_A_ROUTE],
  ['Add a catalogue API', ADD_A_CATALOGUE_API],
] as const;

/** The most files "Add a route" may touch (issue 42): the commands it runs are not counted. */
const MOST_FILES_OF_A_ROUTE = 7;

/** A step that is a command (`npm run docs`), run in the scratch copy, not a file it writes. */
const isCommand = (step: string) => step.startsWith('npm ');

/** The files a recipe names, its commands left out, its placeholders given their values. */
function filesOf(title: string): string[] {
  const values = placeholdersOf(title);
  return recipe(title)
    .flatMap((step) => step.files.filter((file) => !isCommand(file)))
    .map((file) => instantiated(file, values));
}

/**
 * The tests a route reaches, run in the scratch copy: the function table and what is made of it
 * (serverless.yml's functions, the roles), the registry and the area's routes, the requests of
 * the caller tests, the README and the docs, their generated tables, the catalogue table; then
 * the new routes' own tests and the caller tests, which send each route's request with the
 * scope it needs to the emulator, through its handler.
 */
const CHECKS = [
  'test/unit/sls/functions.test.ts',
  'test/unit/sls/resolvers/functions.test.ts',
  'test/unit/sls/resolvers/iam.test.ts',
  'test/unit/lib/http/routes/index.test.ts',
  'test/unit/lib/http/routes/jobs.test.ts',
  'test/unit/test/helpers/route-requests.test.ts',
  'test/unit/readme.test.ts',
  'test/unit/docs/callers.test.ts',
  'test/unit/docs/catalogue.test.ts',
  'test/unit/scripts/docs.test.ts',
  'test/unit/lib/scan-jobs/client.test.ts',
  'test/unit/emulator/scan-jobs/module.test.ts',
  'test/unit/lib/catalogue/table.test.ts',
  'test/unit/lib/catalogue/utility.test.ts',
  'test/unit/emulator/catalogue/shorturl.test.ts',
  'test/integration/callers.test.ts',
];

/**
 * The configuration of the nested vitest: the settings of vitest.config.ts that these files
 * take (timeouts, quiet passing tests, the unit and integration files' shared worker with its
 * setup), as one project in one worker thread. The project's configuration makes a project (a
 * transform pipeline of its own) for each of unit, emulator and integration, and two worker
 * processes: for these sixteen files that cost more CPU than their tests.
 */
const NESTED_VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 180_000,
    pool: 'threads',
    maxWorkers: 1,
    isolate: false,
    setupFiles: ['test/helpers/file-setup.ts'],
  },
});
`;

/** A copy of the repository's files (tracked, or new and not ignored), its node_modules linked. */
async function scratchCopy(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'recipes-'));
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const source = path.join(ROOT, file);
    if (file.startsWith('node_modules') || !existsSync(source) || !lstatSync(source).isFile()) {
      continue;
    }
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(source, path.join(dir, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

interface Outcome {
  readonly code: number;
  readonly output: string;
}

/** A command of the scratch copy, with a plain environment: its exit code and its output. */
async function runIn(dir: string, command: string, args: string[]): Promise<Outcome> {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // The run's compile cache (vitest.config.ts): a faster start, the same command.
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
    TMPDIR: tmpdir(),
    NO_COLOR: '1',
  };
  try {
    const { stdout, stderr } = await run(path.join(dir, 'node_modules/.bin', command), args, {
      cwd: dir,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * The typecheck of the files the recipes wrote, in the scratch copy `dir`, with the project's
 * compiler options: the program of those files and all they import, every diagnostic of the
 * options, of the global scope, and of each file that is written or imports, at any depth, a file
 * written. The program's other files (what the written files import and which imports none of
 * them) are the repository's own, unchanged, with the same imports: their diagnostics are the
 * repository's (`npm run typecheck`), and checking them again cost most of the time of `tsc`.
 */
function typecheckWritten(dir: string, written: readonly string[]): Outcome {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`${dir}/tsconfig.json: not read`);
  const declarations = config.fileNames.filter((file) => file.endsWith('.d.ts'));
  const rootNames = [...declarations, ...written.map((file) => path.join(dir, file))];
  const program = ts.createProgram({ rootNames, options: config.options });
  const resolved = ts.createModuleResolutionCache(dir, (file) => file, config.options);
  const importsOf = new Map(
    program.getSourceFiles().map((source) => [
      path.resolve(source.fileName),
      ts.preProcessFile(source.text, true, true).importedFiles.flatMap(({ fileName }) => {
        const found = ts.resolveModuleName(
          fileName,
          source.fileName,
          config.options,
          ts.sys,
          resolved,
          undefined,
          source.impliedNodeFormat,
        ).resolvedModule;
        return found ? [path.resolve(found.resolvedFileName)] : [];
      }),
    ]),
  );
  const reached = new Set(written.map((file) => path.resolve(dir, file)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [file, imports] of importsOf) {
      if (!reached.has(file) && imports.some((each) => reached.has(each))) {
        reached.add(file);
        grew = true;
      }
    }
  }
  const checked = program
    .getSourceFiles()
    .filter((source) => reached.has(path.resolve(source.fileName)));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((source) => [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]),
  ];
  const output = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  });
  return {
    code: diagnostics.length > 0 ? 1 : 0,
    output: `${checked.length} files checked of the ${program.getSourceFiles().length} of the program\n${output}`,
  };
}

/** The end of a command's output: what a failure message can show. */
const tail = (output: string) => output.split('\n').slice(-80).join('\n');

describe('the recipes "Add a route" and "Add a catalogue API", carried out in a scratch copy', () => {
  let dir = '';
  const unknown: string[] = [];
  let typecheck: Outcome = { code: -1, output: 'not run' };
  let tests: Outcome = { code: -1, output: 'not run' };
  const ran: (Outcome & { readonly command: string })[] = [];

  beforeAll(async () => {
    dir = await scratchCopy();
    const touched = new Set<string>();
    const commands = new Set<string>();
    for (const [title, edits] of CARRIED_OUT) {
      const values = placeholdersOf(title);
      for (const step of recipe(title)) {
        for (const file of step.files.map((each) => instantiated(each, values))) {
          if (isCommand(file)) {
            commands.add(file);
            continue;
          }
          const write = edits[file];
          if (write) write(dir);
          else unknown.push(`${title}: ${file}`);
          touched.add(file);
        }
      }
    }
    // The recipes' commands, once each, after every file is written: `npm run <script>`.
    const scripts = JSON.parse(read('package.json', dir)).scripts as Record<string, string>;
    for (const command of commands) {
      const [program = '', ...args] = scripts[command.replace(/^npm run /, '')]?.split(' ') ?? [];
      const outcome = await runIn(dir, program, args);
      ran.push({ command, ...outcome });
    }
    writeFileSync(path.join(dir, 'vitest.recipes.config.mjs'), NESTED_VITEST_CONFIG);
    const testing = runIn(dir, 'vitest', [
      'run',
      '--config',
      'vitest.recipes.config.mjs',
      ...CHECKS,
    ]);
    // The typecheck runs here while the tests run in their process.
    typecheck = typecheckWritten(
      dir,
      [...touched].filter((file) => file.endsWith('.ts')),
    );
    tests = await testing;
  }, 300_000);

  afterAll(() => {
    if (process.env.RECIPES_KEEP)
      writeFileSync(process.env.RECIPES_KEEP, `${dir}\n${typecheck.output}\n${tests.output}`);
    else if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(CARRIED_OUT.map(([title, edits]) => [title, edits] as const))(
    '%s names every file this test writes for it, each once',
    (title, edits) => {
      const named = filesOf(title);
      expect(named.filter((file, index) => named.indexOf(file) !== index)).toEqual([]);
      expect([...named].sort()).toEqual(Object.keys(edits).sort());
    },
  );

  it(`Add a route touches at most ${MOST_FILES_OF_A_ROUTE} files`, () => {
    expect(filesOf('Add a route').length).toBeLessThanOrEqual(MOST_FILES_OF_A_ROUTE);
  });

  it('runs every command of the recipes there, and each passes', () => {
    expect(ran.map(({ command }) => command)).toEqual(['npm run docs']);
    for (const { command, code, output } of ran) expect(code, `${command}\n${output}`).toBe(0);
  });

  it('has no step this test cannot carry out', () => {
    expect(unknown).toEqual([]);
  });

  it('typechecks what it wrote', () => {
    expect(typecheck.code, tail(typecheck.output)).toBe(0);
  });

  it("passes the tests of the package's parts a route reaches, and the new routes' own", () => {
    expect(tests.code, tail(tests.output)).toBe(0);
    // The new routes' suites ran: a filter that matched nothing would pass too.
    expect(tests.output).toMatch(/Tests\s+\S*\d+ passed/);
    expect(tests.output).not.toMatch(/No test files found/);
  });
});

describe('the other recipes', () => {
  const files = (readdirSync(ROOT, { recursive: true }) as string[])
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => !/^(node_modules|\.git|\.esbuild|\.serverless)\//.test(file));

  it.each([
    'Add a function',
    'Add a middleware',
    'Add a scope',
    'Add a secret capability',
    'Add a folder of `lib/`',
  ])('%s names, step by step, files that are there', (title) => {
    const steps = recipe(title);
    expect(steps.length).toBeGreaterThan(1);
    for (const step of steps) {
      expect(step.files.length, step.text).toBeGreaterThan(0);
      for (const file of step.files.filter((each) => !isCommand(each))) {
        const pattern = new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<\w+>/g, '[^/]+')}$`,
        );
        expect(
          files.some((each) => pattern.test(each)),
          `${title}: ${file}`,
        ).toBe(true);
      }
    }
  });
});

describe('"The stack, in order" of docs/architecture.md', () => {
  /** The middlewares the document lists, in order: `request-log`, ..., `json-body or bytes-body`. */
  const documented = () => {
    const start = ARCHITECTURE.indexOf('- **The stack, in order**');
    const list = ARCHITECTURE.slice(start).split('\n').slice(1);
    const names: string[] = [];
    for (const line of list) {
      const item = /^ {2}\d+\. ((?:`[\w-]+`(?: or )?)+):/.exec(line);
      if (item) names.push(...[...item[1]!.matchAll(/`([\w-]+)`/g)].map((m) => m[1]!));
      else if (names.length > 0 && !/^ {5}/.test(line)) break;
    }
    return names;
  };

  /** The middlewares route-stack.ts uses, in its order, by their files. */
  const built = () => {
    const source = read('lib/http/route-stack.ts');
    // The parts that build the steps the binding hands the stack.
    const binders = ['parts', 'execution-route'].map((file) => read(`lib/http/${file}.ts`));
    const files = new Map(
      [
        ...[source, ...binders]
          .join('\n')
          .matchAll(/import \{ (\w+) \} from '\.\/middleware\/([\w-]+)\.ts'/g),
      ].map((m) => [m[1]!, m[2]!]),
    );
    const used = [...source.matchAll(/\.use\((?:parts\.)?(\w+)/g)].map((m) => m[1]!);
    return used.map((name) => files.get(name) ?? name);
  };

  it('is the order route-stack.ts builds it in, the binder’s admission last', () => {
    expect(documented()).toEqual(built());
    expect(documented().at(-1)).toBe('admission');
  });

  it('names every middleware of lib/http/middleware/, and the guard of the whole invocation', () => {
    const middlewares = readdirSync(path.join(ROOT, 'lib/http/middleware'))
      .filter((file) => file.endsWith('.ts') && file !== 'middleware.ts')
      .map((file) => file.replace(/\.ts$/, ''));
    const guard = /`([\w-]+)` guards the whole invocation/.exec(ARCHITECTURE)?.[1];
    expect(read('lib/http/route-stack.ts')).toMatch(new RegExp(`/${guard}\\.ts'`));
    expect([...middlewares].sort()).toEqual(
      [...documented(), guard].filter((name) => middlewares.includes(name!)).sort(),
    );
  });
});
