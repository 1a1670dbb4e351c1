'use strict';
// One function's execution environment, as Lambda's Node.js runtime runs it (started by
// scripts/rehearse/lambda-host.ts with the function's unzipped code as its working folder and
// its environment): the handler `_HANDLER` names (`<module>.<export>`) is loaded once, from
// LAMBDA_TASK_ROOT, trying `.js`, `.mjs` then `.cjs` as the runtime does; a handler that takes a
// callback is refused, as Node.js 24's runtime refuses it; then each invocation the host sends
// (an event, a request id and a deadline) is answered with what the handler's promise gives, or
// with its error, one after another (one request at a time, as standard Lambda runs them).
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = process.env.LAMBDA_TASK_ROOT;
const handlerName = process.env._HANDLER;

async function load() {
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
  const loaded = file.endsWith('.mjs') ? await import(pathToFileURL(file).href) : require(file);
  const handler = loaded[exportName];
  if (typeof handler !== 'function') {
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

function errorOf(error) {
  return {
    errorType: error?.name ?? 'Error',
    errorMessage: error?.message ?? String(error),
  };
}

load().then(
  (handler) => {
    process.on('message', async ({ id, event, deadline, requestId }) => {
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
        process.send({ id, result: result === undefined ? null : result });
      } catch (error) {
        process.send({ id, error: errorOf(error) });
      }
    });
    process.send({ ready: true });
  },
  (error) => {
    process.send({ initError: errorOf(error) });
  },
);
