'use strict';
// The package's own TypeScript modules that serverless.yml's resolvers and plugins read (the
// function table, the route registry, the error envelope, ...), as one module graph per process:
// bundled in memory by esbuild (which builds the functions already) and loaded as one CommonJS
// module, each of its modules evaluated when first asked for. Loading them file by file through
// tsx cost about 0.7 s of CPU on every start of the CLI (tsx itself, its esbuild service, a
// transform per file); this costs about 0.2 s. One graph, so that a class is one class: the
// envelope's encoder knows the errors the plugins throw.
const path = require('node:path');
const Module = require('node:module');

const ROOT = path.resolve(__dirname, '..');

/** What a resolver or plugin may ask for, by name: the module of the project it is. */
const MODULES = {
  functions: 'lib/functions.ts',
  routes: 'lib/http/routes/index.ts',
  secretCapabilities: 'lib/core/secret-capabilities.ts',
  errors: 'lib/core/errors.ts',
  envelope: 'lib/http/envelope.ts',
  lambdaLimits: 'lib/core/lambda-limits.ts',
  openapi: 'lib/http/openapi.ts',
  docsAssets: 'lib/http/docs-assets.ts',
  sdkNodeNotice: 'scripts/local/sdk-node-notice.ts',
};

/**
 * The bundle's entry: a getter per module, each a require() that esbuild turns into a lazy
 * initializer, so that `serverless print` never evaluates what only a build or serverless
 * offline uses (the OpenAPI builder, the envelope).
 */
const ENTRY = Object.entries(MODULES)
  .map(
    ([name, file]) =>
      `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => require(${JSON.stringify(`./${file}`)}) });`,
  )
  .join('\n');

/** Where the bundle says it is: its require() and import.meta.url resolve from the project. */
const FILENAME = path.join(ROOT, 'sls', 'lib.bundle.cjs');

function load() {
  const esbuild = require('esbuild');
  const { outputFiles } = esbuild.buildSync({
    stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'sls/lib.bundle.cjs', loader: 'js' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    // Dependencies come from node_modules, as the tests and scripts load them.
    packages: 'external',
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: `const __bundleUrl = require('node:url').pathToFileURL(__filename).href;` },
    // A stack trace through these modules names their files and lines.
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'silent',
  });
  const loaded = new Module(FILENAME, module);
  loaded.filename = FILENAME;
  loaded.paths = Module._nodeModulePaths(path.dirname(FILENAME));
  loaded._compile(outputFiles[0].text, FILENAME);
  return loaded.exports;
}

let bundle;
const given = new Map();

/** The module of the project named `name` (a key of MODULES), loaded once per process. */
function lib(name) {
  if (!Object.hasOwn(MODULES, name)) throw new Error(`sls/lib.cjs: no module named ${name}`);
  bundle ??= load();
  // esbuild's CommonJS view of a module is a new object at each require(): one per name.
  if (!given.has(name)) given.set(name, bundle[name]);
  return given.get(name);
}

module.exports = { lib };
