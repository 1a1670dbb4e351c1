// serverless.yml's ${file()} runs only .js and .cjs files: this one hands it sls/variables.ts.
module.exports = require('./variables.ts');
