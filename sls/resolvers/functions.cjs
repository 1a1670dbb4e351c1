'use strict';
// serverless.yml's functions, made from the function table (sls/functions.ts), so that a
// function is one entry there: `functions: ${file(./sls/resolvers/functions.cjs):functions}`.
// Each gets its handler for the kind of stage (deployed or local; the reference public or for
// callers), its role of its own (sls/resolvers/iam.cjs), its timeout and memory, its reserved
// concurrency from its stage parameter, its variables, and its events: the httpApi events of its
// routes (sls/resolvers/routes.cjs, with their JWT scopes), the catch-all, its queue or its
// schedule. Values written with serverless variables (`${param:...}`, `${self:custom...}`) are
// resolved by the framework as a file's are.
const { lib } = require('../lib.cjs');
const { httpApiEvents, publicReferenceOf } = require('./routes.cjs');

/** The function table and the route registry, loaded once for every resolver that reads them. */
const table = lib('functions');
const registry = lib('routes');

/** A function's role, of its own (sls/resolvers/iam.cjs): `<name>` -> `<Name>Role`. */
const roleOf = (fn) => `${fn.charAt(0).toUpperCase()}${fn.slice(1)}Role`;

/** `functions/jobs/list.ts` -> `functions/jobs/list.handler`: serverless's handler. */
const handlerOf = (module) => module.replace(/\.ts$/, '.handler');

/** The module a stage loads: by local or deployed, and by its reference's publicity. */
function moduleOf(fn, { local, publicReference }) {
  const { handler } = fn;
  if (typeof handler === 'string') return handler;
  if ('local' in handler) return local ? handler.local : handler.deployed;
  return publicReference ? handler.publicReference : handler.forCallers;
}

/** A function's events: its routes', the catch-all, its queue or its schedule. */
function eventsOf(fn, routeEvents) {
  const { trigger } = fn;
  if ('routes' in trigger) return routeEvents[fn.name] ?? [];
  if ('catchAll' in trigger) return [{ httpApi: '*' }];
  if ('queue' in trigger) {
    return [
      {
        sqs: {
          arn: { 'Fn::GetAtt': [trigger.queue, 'Arn'] },
          batchSize: trigger.batchSize,
          ...(trigger.reportsBatchItemFailures
            ? { functionResponseType: 'ReportBatchItemFailures' }
            : {}),
          ...('eventSourceMax' in (fn.concurrency ?? {})
            ? { maximumConcurrency: `\${param:${fn.concurrency.eventSourceMax}}` }
            : {}),
        },
      },
    ];
  }
  return [
    { schedule: { rate: [trigger.schedule], enabled: true, description: trigger.description } },
  ];
}

/** serverless.yml's `functions`, by name, in the table's order. */
const functions = async ({ resolveVariable }) => {
  const stage = {
    local: String(await resolveVariable('self:custom.isLocal')) === 'true',
    publicReference: await publicReferenceOf(resolveVariable),
  };
  const routeEvents = await httpApiEvents({ resolveVariable });
  const blocks = {};
  for (const fn of Object.values(table.FUNCTIONS)) {
    const reserved = fn.concurrency && 'reserved' in fn.concurrency;
    blocks[fn.name] = {
      handler: handlerOf(moduleOf(fn, stage)),
      role: roleOf(fn.name),
      ...(fn.description ? { description: fn.description } : {}),
      timeout: fn.timeout,
      memorySize: fn.memory,
      // A function that reads no secret starts no secrets extension at its cold start.
      ...(fn.reads.length === 0 ? { layers: [] } : {}),
      ...(reserved ? { reservedConcurrency: `\${param:${fn.concurrency.reserved}}` } : {}),
      ...(fn.environment ? { environment: { ...fn.environment } } : {}),
      events: eventsOf(fn, routeEvents),
    };
  }
  return blocks;
};

/** The function the invocation queue runs: the dimension of its parked invocations' alarm. */
const queueConsumer = () =>
  Object.values(table.FUNCTIONS).find(
    (fn) => 'queue' in fn.trigger && fn.trigger.queue === 'InvocationQueue',
  ).name;

module.exports = { functions, queueConsumer, table, registry, moduleOf, roleOf };
