// serverless.yml's ${file()} runs only .js and .cjs files: this one hands it sls/variables.ts.
// It is the first of the project's code the CLI runs. From here on Node keeps what it compiles
// (its compile cache), which saves each later start of the CLI about 0.7 s of CPU.
require('node:module').enableCompileCache();
module.exports = require('./variables.ts');
