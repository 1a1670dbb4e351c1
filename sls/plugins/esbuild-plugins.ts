// esbuild plugins of the function bundles (serverless.yml, custom.esbuild.plugins). They leave out
// the parts of undici that no function can reach: undici is about two thirds of an HTTP function's
// bundle. Each part left out becomes a module that throws, should it ever be reached. Its
// message names the part and this file, where a comment says why no function needs it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin, PluginBuild } from 'esbuild';

/** undici's own modules, read as the bundles would load them. */
const require = createRequire(import.meta.url);

/** An undici module left out, and what its error says. */
interface LeftOut {
  readonly file: RegExp;
  /** Short: every bundle carries it. Why no function can use the part is in its comment. */
  readonly said: string;
  /** The names it exports that are called later, not when it loads. */
  readonly calledLater?: readonly string[];
}

/** The undici modules left out, by file, each with why no function can use it. */
const LEFT_OUT: readonly LeftOut[] = [
  {
    // undici carries its HTTP parser twice, as WebAssembly with and without SIMD (70 KB each),
    // and loads the one without SIMD only when the other cannot compile. Node 24 on Lambda
    // (x86_64 and arm64) runs WebAssembly SIMD.
    file: /[\\/]llhttp[\\/]llhttp-wasm\.js$/,
    said: 'no WebAssembly SIMD, and the non-SIMD HTTP parser was left out',
  },
  {
    // HTTP/2 is only spoken when a dispatcher allows it (`allowH2`); ours never does. The
    // client requires it when it loads, and calls it only on a connection that chose h2.
    file: /[\\/]dispatcher[\\/]client-h2\.js$/,
    said: 'HTTP/2 was left out',
    calledLater: [],
  },
  {
    // The fetch body machinery (web IDL, FormData, data: URLs, about 45 KB) is only loaded to
    // send a FormData body; this package sends strings and bytes.
    file: /[\\/]web[\\/]fetch[\\/]body\.js$/,
    said: 'FormData bodies were left out',
  },
  {
    // Interceptors: a dispatcher's `compose` wraps each in this handler; no dispatcher of this
    // package is composed. Required when the dispatcher loads, called only by `compose`.
    file: /[\\/]handler[\\/]wrap-handler(\.js)?$/,
    said: 'interceptors were left out',
    calledLater: ['wrap'],
  },
  {
    // A client's and a pool's `stats` getters; nothing here reads them.
    file: /[\\/]util[\\/]stats(\.js)?$/,
    said: 'stats were left out',
    calledLater: ['ClientStats', 'PoolStats'],
  },
];

const leaveOutUnreachableUndici: Plugin = {
  name: 'leave-out-unreachable-undici',
  setup(build) {
    build.onResolve(
      { filter: /(llhttp-wasm|client-h2|body|wrap-handler|stats)(\.js)?$/ },
      (args) => {
        const resolved = path.join(args.resolveDir, args.path);
        if (!/[\\/]node_modules[\\/]undici[\\/]/.test(resolved)) return undefined;
        const entry = LEFT_OUT.find(({ file }) => file.test(resolved));
        return entry ? { path: resolved, namespace: 'left-out', pluginData: entry } : undefined;
      },
    );
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, ({ pluginData }) => {
      const entry = pluginData as LeftOut;
      const error = `new Error(${JSON.stringify(`undici: ${entry.said} (sls/plugins/esbuild-plugins.ts)`)})`;
      // A module loaded when it is needed throws then; one loaded up front, when it is called:
      // the module itself, or each of the names it exports (`calledLater`).
      const leftOut = `function leftOut() { throw ${error}; }`;
      const names = entry.calledLater?.map((name) => `${name}: leftOut`).join(', ');
      const contents = !entry.calledLater
        ? `throw ${error};`
        : names
          ? `${leftOut}\nmodule.exports = { ${names} };`
          : `module.exports = ${leftOut};`;
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The OpenAPI document, built at package time by the code that would build it at cold start
 * (lib/http/openapi-document.ts). So the bundle of GET /openapi.json carries the text, not the
 * route table and every schema it describes. The text is gzipped (about a sixth of its 50 KB), and
 * unzipped once, on a container's first request.
 */
const openApiDocumentBuiltAhead: Plugin = {
  name: 'openapi-document-built-ahead',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/]http[\\/]openapi-document\.ts$/ }, async () => {
      const { buildOpenApiDocument } = await import('../../lib/http/openapi.ts');
      const text = JSON.stringify(buildOpenApiDocument());
      const gzipped = zlib.gzipSync(text, { level: 9 }).toString('base64');
      return {
        contents: [
          "const { gunzipSync } = require('node:zlib');",
          'let text;',
          'export function openApiDocumentText() {',
          `  text ??= gunzipSync(Buffer.from(${JSON.stringify(gzipped)}, 'base64')).toString('utf8');`,
          '  return text;',
          '}',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The reference page's renderer (Swagger UI, lib/http/docs-assets.ts), gzipped at package time into
 * the docs function's bundle. Its files come from its own zip, never from another site. Only
 * functions/docs.ts imports the module, so no other function bundles them.
 */
const docsAssetsBuiltIn: Plugin = {
  name: 'docs-assets-built-in',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/]http[\\/]docs-assets\.ts$/ }, async () => {
      const { RENDERER_FILES } = await import('../../lib/http/docs-assets.ts');
      const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
      const files = Object.fromEntries(
        Object.entries(RENDERER_FILES).map(([name, contentType]) => [
          name,
          {
            contentType,
            gzipped: zlib
              .gzipSync(fs.readFileSync(path.join(dir, name)), { level: 9 })
              .toString('base64'),
          },
        ]),
      );
      return {
        contents: [
          `export const RENDERER_FILES = ${JSON.stringify(RENDERER_FILES)};`,
          `const FILES = ${JSON.stringify(files)};`,
          'const decoded = new Map();',
          'export function rendererFile(name) {',
          '  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;',
          '  if (!file) return undefined;',
          '  let found = decoded.get(name);',
          "  if (!found) decoded.set(name, (found = { contentType: file.contentType, gzipped: Buffer.from(file.gzipped, 'base64') }));",
          '  return found;',
          '}',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * undici's HTTP parser (WebAssembly with SIMD, 54 KB) comes as base64 text: 72 KB of every bundle,
 * parsed for nothing until a connection needs it. Here it is written as bytes beside each bundle
 * that uses it, and read from there when undici first compiles it. `list.cjs` gets
 * `list.llhttp.wasm`: a function's zip takes the files named after its bundle. A test checks that
 * undici gets the same bytes.
 */
const PARSER_MODULE = /[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp_simd-wasm\.js$/;
const PARSER_SUFFIX = '.llhttp.wasm';

const httpParserBeside: Plugin = {
  name: 'http-parser-beside',
  setup(build) {
    build.initialOptions.metafile = true;
    let parser: Buffer | undefined;
    build.onLoad({ filter: PARSER_MODULE }, (args) => {
      parser = require(args.path);
      const contents = [
        "'use strict';",
        "const { readFileSync } = require('node:fs');",
        `const file = __filename.replace(/\\.[cm]?js$/, '') + ${JSON.stringify(PARSER_SUFFIX)};`,
        'let wasm;',
        "Object.defineProperty(module, 'exports', { get: () => (wasm ??= readFileSync(file)) });",
      ].join('\n');
      return { contents, loader: 'js' };
    });
    build.onEnd((result) => {
      if (!parser || !result.metafile || build.initialOptions.write === false) return;
      const root = build.initialOptions.absWorkingDir ?? process.cwd();
      for (const [output, info] of Object.entries(result.metafile.outputs)) {
        if (!/\.[cm]?js$/.test(output)) continue;
        if (!Object.keys(info.inputs).some((input) => PARSER_MODULE.test(input))) continue;
        const bundle = path.resolve(root, output);
        fs.writeFileSync(bundle.replace(/\.[cm]?js$/, '') + PARSER_SUFFIX, parser);
      }
    });
  },
};

/**
 * undici's HTTP client reads two of the parser's constant tables, ERROR and TYPE. The module that
 * holds them carries about 30 (character classes, method and status names): 10 KB of every HTTP
 * bundle. It is replaced by those 2 tables, taken from undici's own module at build time. The build
 * fails if an undici module reads the constants other than as `<name>.<TABLE>`, or reads a table
 * that does not exist.
 */
const PARSER_CONSTANTS = /[\\/]undici[\\/]lib[\\/]llhttp[\\/]constants\.js$/;

function parserTablesRead(undiciLib: string): Set<string> {
  const tables = new Set<string>();
  const files = fs.readdirSync(undiciLib, { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((name) => name.endsWith('.js'))) {
    const source = fs.readFileSync(path.join(undiciLib, file), 'utf8');
    const required = /const (\w+) = require\('[./]*llhttp\/constants(?:\.js)?'\)/.exec(source);
    if (!required) continue;
    const rest = source.replace(required[0], '');
    for (const [use, table] of rest.matchAll(
      new RegExp(`\\b${required[1]}\\b(?:\\.(\\w+))?`, 'g'),
    )) {
      if (!table) throw new Error(`${file} reads undici's parser constants as a whole (${use})`);
      tables.add(table);
    }
  }
  if (tables.size === 0) throw new Error("no module of undici reads the parser's constants");
  return tables;
}

const parserConstantsRead: Plugin = {
  name: 'parser-constants-read',
  setup(build) {
    build.onLoad({ filter: PARSER_CONSTANTS }, (args) => {
      const all: Record<string, unknown> = require(args.path);
      const tables = parserTablesRead(path.resolve(path.dirname(args.path), '..'));
      const kept: Record<string, unknown> = {};
      for (const table of tables) {
        if (!Object.hasOwn(all, table))
          throw new Error(`undici reads ${table}, not a parser table`);
        kept[table] = all[table];
      }
      return { contents: `module.exports = ${JSON.stringify(kept)};`, loader: 'js' };
    });
  },
};

/**
 * The upload of a large response (lib/hand-off/multipart-upload.ts: S3's multipart calls and the
 * presigned URL, about 5 KB) is needed only when a response is too large to return. So it is a
 * bundle of its own, written beside each function bundle that may need it: `report.cjs` gets
 * `report.hand-off.cjs`. The function's bundle carries a stand-in that requires it the first time.
 * The module shares no object with the main bundle: it is given its `send`, and throws errors of
 * its own. So its own copy of what it imports is safe.
 */
const HAND_OFF_MODULE = /[\\/]lib[\\/]hand-off[\\/]multipart-upload\.ts$/;
const HAND_OFF_SUFFIX = '.hand-off.cjs';

const handOffBeside: Plugin = {
  name: 'hand-off-beside',
  setup(build) {
    build.initialOptions.metafile = true;
    let entry: string | undefined;
    build.onResolve({ filter: /[\\/]multipart-upload\.ts$/ }, (args) => {
      const resolved = path.join(args.resolveDir, args.path);
      return HAND_OFF_MODULE.test(resolved)
        ? { path: resolved, namespace: 'hand-off-beside' }
        : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'hand-off-beside' }, (args) => {
      entry = args.path;
      const contents = [
        "'use strict';",
        `module.exports = require(__filename.replace(/\\.[cm]?js$/, '') + ${JSON.stringify(HAND_OFF_SUFFIX)});`,
      ].join('\n');
      return { contents, loader: 'js' };
    });
    build.onEnd(async (result) => {
      if (!entry || !result.metafile || build.initialOptions.write === false) return;
      const options = build.initialOptions;
      const root = options.absWorkingDir ?? process.cwd();
      const bundles = Object.entries(result.metafile.outputs)
        .filter(
          ([output, info]) =>
            /\.[cm]?js$/.test(output) &&
            Object.keys(info.inputs).some((input) => input.startsWith('hand-off-beside:')),
        )
        .map(([output]) => path.resolve(root, output));
      if (bundles.length === 0) return;
      const built = await build.esbuild.build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: options.target,
        minify: options.minify,
        legalComments: 'none',
        write: false,
        logLevel: 'silent',
      });
      const code = built.outputFiles![0]!.contents;
      for (const bundle of bundles) {
        fs.writeFileSync(bundle.replace(/\.[cm]?js$/, '') + HAND_OFF_SUFFIX, code);
      }
    });
  },
};

/**
 * undici's diagnostics module opens its diagnostics channels, which an instrumentation such as
 * OpenTelemetry subscribes to. For NODE_DEBUG=undici, fetch or websocket, it also subscribes debug
 * logging to them. That is 3 KB of every HTTP bundle, and no deployed function logs it. The module
 * is replaced by its channels alone, taken from undici's own module at build time, so a subscriber
 * still sees every event. The build fails if the module exports anything else, or its channels
 * cannot be read.
 */
const DIAGNOSTICS = /[\\/]undici[\\/]lib[\\/]core[\\/]diagnostics\.js$/;

function diagnosticsChannelsOf(source: string): string {
  const channels = /^const channels = \{\n[\s\S]*?\n\}$/m.exec(source);
  if (!channels || !/^module\.exports = \{\s*channels\s*\}$/m.test(source)) {
    throw new Error("undici's diagnostics module changed: it no longer exports its channels alone");
  }
  return [
    "'use strict';",
    "const diagnosticsChannel = require('node:diagnostics_channel');",
    channels[0],
    'module.exports = { channels };',
  ].join('\n');
}

const diagnosticsChannelsOnly: Plugin = {
  name: 'diagnostics-channels-only',
  setup(build) {
    build.onLoad({ filter: DIAGNOSTICS }, (args) => ({
      contents: diagnosticsChannelsOf(fs.readFileSync(args.path, 'utf8')),
      loader: 'js',
    }));
  },
};

/**
 * undici's errors module defines all 25 error classes of the package (the retry handler's, the
 * proxies', WebSocket's, ...): about 7.5 KB of every HTTP bundle. It is cut to the classes the
 * bundled undici modules name, with the classes they extend. The bundles reach undici only through
 * its Agent (lib/upstream/undici.ts). So the modules that count are those a build of the Agent with
 * these plugins takes in, read once from its metafile. No bundled code can construct or test for a
 * class left out. The build fails if the module no longer reads as one block per class and an
 * export of each.
 */
const UNDICI_ERRORS = /[\\/]undici[\\/]lib[\\/]core[\\/]errors\.js$/;
/** The one module of undici the package imports (lib/upstream/undici.ts). */
const UNDICI_ENTRY = 'undici/lib/dispatcher/agent.js';
const ERROR_CLASS =
  /^(?:const k\w+ = Symbol\.for\('[\w.]+'\)\n)?class (\w+) extends (\w+) \{\n[\s\S]*?^\}\n\n?/gm;

let wordsByFile: Promise<Map<string, Set<string>>> | undefined;

/**
 * Every word of the undici modules an Agent's bundle takes in, but those of the module being cut
 * (`cut`). The Agent is built with the other plugins, undici's modules whole.
 */
async function undiciWordsBundled(build: PluginBuild, cut: RegExp): Promise<Set<string>> {
  wordsByFile ??= build.esbuild
    .build({
      entryPoints: [require.resolve(UNDICI_ENTRY)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: PLUGINS.filter((plugin) => !CUTTING.includes(plugin)),
    })
    .then(({ metafile }) => {
      const byFile = new Map<string, Set<string>>();
      for (const input of Object.keys(metafile.inputs)) {
        const file = path.resolve(input);
        if (!fs.existsSync(file)) continue;
        const words = new Set<string>();
        for (const [word] of fs.readFileSync(file, 'utf8').matchAll(/\b\w+\b/g)) words.add(word);
        byFile.set(file, words);
      }
      return byFile;
    });
  const words = new Set<string>();
  for (const [file, own] of await wordsByFile) {
    if (!cut.test(file)) for (const word of own) words.add(word);
  }
  return words;
}

/** A plugin that loads one module of undici cut by `cutOf` to what the other bundled modules name. */
function undiciCut(
  name: string,
  filter: RegExp,
  cutOf: (source: string, used: ReadonlySet<string>) => string,
): Plugin {
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        const used = await undiciWordsBundled(build, filter);
        return { contents: cutOf(fs.readFileSync(args.path, 'utf8'), used), loader: 'js' };
      });
    },
  };
}

/** undici's errors module with only the classes named in `used`, and those they extend. */
function undiciErrorsOf(source: string, used: ReadonlySet<string>): string {
  const classes = new Map<string, { text: string; base: string }>();
  for (const block of source.matchAll(ERROR_CLASS)) {
    classes.set(block[1]!, { text: block[0], base: block[2]! });
  }
  const exported = /^module\.exports = \{\n((?: {2}\w+,?\n)+)\}\n?$/m.exec(source);
  const names = exported?.[1]?.split(/[\s,]+/).filter(Boolean) ?? [];
  if (names.length === 0 || names.some((name) => !classes.has(name))) {
    throw new Error(
      "undici's errors module changed: it no longer reads as a class and an export each",
    );
  }
  const kept = new Set<string>();
  const keep = (name: string): void => {
    const found = classes.get(name);
    if (kept.has(name) || !found) return;
    kept.add(name);
    keep(found.base);
  };
  for (const name of names) if (used.has(name)) keep(name);
  let cut = source.replace(exported![0], `module.exports = { ${[...kept].join(', ')} }\n`);
  for (const [name, { text }] of classes) if (!kept.has(name)) cut = cut.replace(text, '');
  return cut;
}

const undiciErrorsUsed = undiciCut('undici-errors-used', UNDICI_ERRORS, undiciErrorsOf);

/**
 * undici's util module holds the helpers of every part of undici (fetch's streams and ranges,
 * FormData, the API's listeners...): about 11 KB of every HTTP bundle. It is cut to the functions
 * the bundled undici modules name, with those the kept code calls, as the errors module is. Its
 * other top-level code stays whole. The build fails if the module no longer reads as top-level
 * functions and one export of them.
 */
const UNDICI_UTIL = /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/;
const TOP_LEVEL_FUNCTION = /^(?:async )?function (\w+) \([\s\S]*?^\}\n/gm;

/** undici's util module with only the functions named in `used`, and those they call. */
function undiciUtilOf(source: string, used: ReadonlySet<string>): string {
  const functions = new Map<string, string>();
  for (const block of source.matchAll(TOP_LEVEL_FUNCTION)) functions.set(block[1]!, block[0]);
  const exported = /^module\.exports = \{\n([\s\S]*?)\n\}\n?$/m.exec(source);
  const entries = (exported?.[1] ?? '').split('\n').map((line) => line.trim().replace(/,$/, ''));
  const nameOf = (entry: string) => /^\w+/.exec(entry)?.[0] ?? '';
  if (functions.size < 10 || entries.length < 10 || entries.some((entry) => !nameOf(entry))) {
    throw new Error("undici's util module changed: it no longer reads as functions and one export");
  }
  const kept = entries.filter((entry) => used.has(nameOf(entry)));
  const withKept = source.replace(exported![0], `module.exports = {\n${kept.join(',\n')}\n}\n`);
  // What the rest of the module names, then what each function it keeps names, in turn.
  let rest = withKept;
  for (const text of functions.values()) rest = rest.replace(text, '');
  const needed = new Set<string>();
  const name = (text: string): void => {
    for (const [word] of text.matchAll(/\b\w+\b/g)) {
      const body = functions.get(word);
      if (body === undefined || needed.has(word)) continue;
      needed.add(word);
      name(body);
    }
  };
  name(rest);
  let cut = withKept;
  for (const [fn, text] of functions) if (!needed.has(fn)) cut = cut.replace(text, '');
  return cut;
}

const undiciUtilUsed = undiciCut('undici-util-used', UNDICI_UTIL, undiciUtilOf);

/**
 * undici's symbols module exports the keys of every part of undici as one object: the proxies',
 * the redirects', the retries'... It is cut to the keys the bundled undici modules name. The build
 * fails if the module no longer reads as that one object, a key and its symbol a line.
 */
const UNDICI_SYMBOLS = /[\\/]undici[\\/]lib[\\/]core[\\/]symbols\.js$/;

/** undici's symbols module with only the keys named in `used`. */
function undiciSymbolsOf(source: string, used: ReadonlySet<string>): string {
  const exported =
    /^module\.exports = \{\n((?: {2}\w+: Symbol(?:\.for)?\('[^'\n]*'\),?\n)+)\}\n?$/m.exec(source);
  const lines = exported?.[1]?.split('\n').filter(Boolean) ?? [];
  if (lines.length < 10) {
    throw new Error("undici's symbols module changed: it no longer reads as one object of symbols");
  }
  const kept = lines.filter((line) => used.has(/\w+/.exec(line)![0]));
  return source.replace(
    exported![0],
    `module.exports = {\n${kept.map((line) => line.replace(/,$/, '')).join(',\n')}\n}\n`,
  );
}

const undiciSymbolsUsed = undiciCut('undici-symbols-used', UNDICI_SYMBOLS, undiciSymbolsOf);

/** The plugins that cut a module of undici to what the others name. */
const CUTTING: readonly Plugin[] = [undiciErrorsUsed, undiciUtilUsed, undiciSymbolsUsed];

const PLUGINS: Plugin[] = [
  leaveOutUnreachableUndici,
  diagnosticsChannelsOnly,
  undiciErrorsUsed,
  undiciUtilUsed,
  undiciSymbolsUsed,
  openApiDocumentBuiltAhead,
  docsAssetsBuiltIn,
  httpParserBeside,
  parserConstantsRead,
  handOffBeside,
];

export default PLUGINS;
