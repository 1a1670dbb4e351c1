'use strict';
// The package's own TypeScript modules that serverless.yml's resolvers and plugins read (the
// function table, the route registry, the error envelope, ...). Node 24 strips their types as it
// loads them: one module graph per process, so that a class is one class (the envelope's encoder
// knows the errors the plugins throw).
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** What a resolver or plugin may ask for, by name: the module of the project it is. */
const MODULES = {
  functions: 'sls/functions.ts',
  routes: 'lib/http/routes/index.ts',
  secretCapabilities: 'lib/core/secret-capabilities.ts',
  errors: 'lib/core/errors.ts',
  envelope: 'lib/http/envelope.ts',
  lambdaLimits: 'lib/core/lambda-limits.ts',
  openapi: 'lib/http/openapi.ts',
  docsAssets: 'lib/http/docs-assets.ts',
};

/** The module of the project named `name` (a key of MODULES): Node 24 loads the TypeScript itself. */
function lib(name) {
  if (!Object.hasOwn(MODULES, name)) throw new Error(`sls/lib.cjs: no module named ${name}`);
  return require(path.join(ROOT, MODULES[name]));
}

module.exports = { lib };
