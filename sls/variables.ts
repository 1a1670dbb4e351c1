/**
 * What serverless.yml and sls/resources/*.yml read of the deploy's code, by module:
 * `${file(./sls/variables.cjs):iam.roles}` is `roles` of sls/resolvers/iam.ts. The framework
 * calls a function it reaches there with the variables' resolver (ResolverArgs) and takes what
 * it returns. Its `${file()}` runs only .js and .cjs files, so sls/variables.cjs hands it this
 * module.
 */
export * as alarms from './plugins/alarms.ts';
export * as cors from './resolvers/cors.ts';
export * as functions from './resolvers/functions.ts';
export * as iam from './resolvers/iam.ts';
export * as jwt from './resolvers/jwt.ts';
export * as local from './resolvers/local.ts';
export * as secrets from './resolvers/secrets.ts';
export * as secretsExtension from './resolvers/secrets-extension.ts';
export * as tables from './resolvers/tables.ts';
