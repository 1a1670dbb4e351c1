// One function's execution environment, as Lambda's Node.js runtime runs it (started by
// scripts/rehearse/lambda-host.ts with the function's unzipped code as its working folder and
// its environment): the handler `_HANDLER` names (`<module>.<export>`) is loaded once, from
// LAMBDA_TASK_ROOT, trying `.js`, `.mjs` then `.cjs` as the runtime does; a handler that takes a
// callback is refused, as Node.js 24's runtime refuses it; then each invocation the host sends
// (an event, a request id and a deadline) is answered with what the handler's promise gives, or
// with its error, one after another (one request at a time, as standard Lambda runs them).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A handler as Lambda's Node.js runtime calls it: an event and a context, a promise back. */
type Handler = ((event: unknown, context: object) => unknown) & { readonly [key: symbol]: unknown };

/** An invocation the host sends. */
interface Invocation {
  readonly id: number;
  readonly event: unknown;
  readonly deadline: number;
  readonly requestId: string;
}

/** The function's code is CommonJS (or .mjs): required as the runtime requires it. */
const require = createRequire(import.meta.url);
const root = process.env.LAMBDA_TASK_ROOT ?? '';
const handlerName = process.env._HANDLER ?? '';

/** A message to the host, over the channel fork opened. */
const send = (message: object) => process.send?.(message);

const isHandler = (value: unknown): value is Handler => typeof value === 'function';

async function load(): Promise<Handler> {
  const dot = handlerName.lastIndexOf('.');
  const modulePath = handlerName.slice(0, dot);
  const exportName = handlerName.slice(dot + 1);
  const file = ['.js', '.mjs', '.cjs']
    .map((extension) => path.join(root, modulePath + extension))
    .find((candidate) => fs.existsSync(candidate));
  if (!file) {
    throw Object.assign(new Error(`Cannot find module '${modulePath}'`), {
      name: 'Runtime.ImportModuleError',
    });
  }
  const loaded: Record<string, unknown> = file.endsWith('.mjs')
    ? await import(pathToFileURL(file).href)
    : require(file);
  const handler = loaded[exportName];
  if (!isHandler(handler)) {
    throw Object.assign(new Error(`${handlerName} is undefined or not exported`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
  if (handler.length >= 3 && !handler[Symbol.for('aws.lambda.runtime.handler.streaming')]) {
    throw Object.assign(new Error(`${handlerName} takes a callback, which Node.js 24 refuses`), {
      name: 'Runtime.CallbackHandlerDeprecated',
    });
  }
  return handler;
}

/** A field of what a handler threw, whatever it threw. */
const fieldOf = (error: unknown, key: 'name' | 'message'): unknown =>
  typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined;

function errorOf(error: unknown) {
  return {
    errorType: fieldOf(error, 'name') ?? 'Error',
    errorMessage: fieldOf(error, 'message') ?? String(error),
  };
}

load().then(
  (handler) => {
    process.on('message', async ({ id, event, deadline, requestId }: Invocation) => {
      const context = {
        callbackWaitsForEmptyEventLoop: true,
        functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
        functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
        invokedFunctionArn: process.env.LAMBDA_FUNCTION_ARN,
        memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
        awsRequestId: requestId,
        logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
        logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
        getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
      };
      try {
        const result = await handler(event, context);
        send({ id, result: result === undefined ? null : result });
      } catch (error) {
        send({ id, error: errorOf(error) });
      }
    });
    send({ ready: true });
  },
  (error) => {
    send({ initError: errorOf(error) });
  },
);
