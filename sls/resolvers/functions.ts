// serverless.yml's functions, made from the function table (sls/functions.ts), so that a function
// is one entry there: `functions: ${file(./sls/variables.cjs):functions.functions}`. Each gets
// its handler for the kind of stage (deployed or local; the reference public or for callers),
// its role of its own (sls/resolvers/iam.ts), its timeout and memory, its reserved concurrency
// from its stage parameter, its variables, and its events: the httpApi events of its routes
// (sls/resolvers/routes.ts, with their JWT scopes), the catch-all, its queue or its schedule.
// Values written with serverless variables (`${param:...}`, `${self:custom...}`) are resolved by
// the framework as a file's are.
import type { LambdaFunction } from '../function-entry.ts';
import { FUNCTIONS } from '../functions.ts';
import type { ResolverArgs } from '../serverless.ts';
import { httpApiEvents, publicReferenceOf, type RouteEvents } from './routes.ts';

/** An event of a function, as serverless.yml writes it. */
type FunctionEvent =
  | RouteEvents[string][number]
  | { readonly httpApi: '*' }
  | {
      readonly sqs: {
        readonly arn: { readonly 'Fn::GetAtt': readonly [string, 'Arn'] };
        readonly batchSize: number;
        readonly functionResponseType?: 'ReportBatchItemFailures';
        readonly maximumConcurrency?: string;
      };
    }
  | {
      readonly schedule: {
        readonly rate: readonly string[];
        readonly enabled: true;
        readonly description: string;
      };
    };

/** A function of serverless.yml, as the framework reads it. */
export interface FunctionBlock {
  readonly handler: string;
  readonly role: string;
  readonly description?: string;
  readonly timeout: number;
  readonly memorySize: number;
  readonly layers?: readonly string[];
  readonly reservedConcurrency?: string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly events: readonly FunctionEvent[];
}

/** A function's role, of its own (sls/resolvers/iam.ts): `<name>` -> `<Name>Role`. */
export const roleOf = (fn: string): string => `${fn.charAt(0).toUpperCase()}${fn.slice(1)}Role`;

/** `functions/jobs/list.ts` -> `functions/jobs/list.handler`: serverless's handler. */
const handlerOf = (module: string): string => module.replace(/\.ts$/, '.handler');

/** The module a stage loads: by local or deployed, and by its reference's publicity. */
function moduleOf(
  fn: LambdaFunction,
  { local, publicReference }: { local: boolean; publicReference: boolean },
): string {
  const { handler } = fn;
  if (typeof handler === 'string') return handler;
  if ('local' in handler) return local ? handler.local : handler.deployed;
  return publicReference ? handler.publicReference : handler.forCallers;
}

/** A function's events: its routes', the catch-all, its queue or its schedule. */
function eventsOf(fn: LambdaFunction, routeEvents: RouteEvents): FunctionEvent[] {
  const { trigger, concurrency } = fn;
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
          ...(concurrency && 'eventSourceMax' in concurrency
            ? { maximumConcurrency: `\${param:${concurrency.eventSourceMax}}` }
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
export const functions = async ({
  resolveVariable,
}: ResolverArgs): Promise<Record<string, FunctionBlock>> => {
  const stage = {
    local: String(await resolveVariable('self:custom.isLocal')) === 'true',
    publicReference: await publicReferenceOf(resolveVariable),
  };
  const routeEvents = await httpApiEvents({ resolveVariable });
  const blocks: Record<string, FunctionBlock> = {};
  for (const fn of Object.values(FUNCTIONS)) {
    const { concurrency } = fn;
    blocks[fn.name] = {
      handler: handlerOf(moduleOf(fn, stage)),
      role: roleOf(fn.name),
      ...(fn.description ? { description: fn.description } : {}),
      timeout: fn.timeout,
      memorySize: fn.memory,
      // A function that reads no secret starts no secrets extension at its cold start.
      ...(fn.reads.length === 0 ? { layers: [] } : {}),
      ...(concurrency && 'reserved' in concurrency
        ? { reservedConcurrency: `\${param:${concurrency.reserved}}` }
        : {}),
      ...(fn.environment ? { environment: { ...fn.environment } } : {}),
      events: eventsOf(fn, routeEvents),
    };
  }
  return blocks;
};

/** The function the invocation queue runs: the dimension of its parked invocations' alarm. */
export const queueConsumer = (): string => {
  const consumer = Object.values(FUNCTIONS).find(
    (fn) => 'queue' in fn.trigger && fn.trigger.queue === 'InvocationQueue',
  );
  if (!consumer) throw new Error('No function of the table runs the invocation queue');
  return consumer.name;
};
