// serverless.yml's ${file()} runs only .js and .cjs files: this one hands it sls/variables.ts.
// It is the first of the project's code the CLI runs. From here on Node keeps what it compiles
// (its compile cache), which saves each later start of the CLI about 0.7 s of CPU, and V8 keeps
// osls's validator once it has run (sls/validator-cache.ts), which saves about 0.7 s more.
const { enableCompileCache, getCompileCacheDir } = require('node:module');
const path = require('node:path');

enableCompileCache();
const compileCache = getCompileCacheDir();
// Only in the CLI's own process: a test that loads this file keeps Node's loader as it was.
const inCli = require.main?.filename.endsWith(path.join('serverless', 'bin', 'serverless.js'));
if (compileCache && inCli) {
  const { cacheValidator } = require('./validator-cache.ts');
  cacheValidator(path.join(compileCache, 'osls'));
}
module.exports = require('./variables.ts');
