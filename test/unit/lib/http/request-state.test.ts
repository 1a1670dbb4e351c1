import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import type * as RequestStateModule from '../../../../lib/http/request-state.ts';
import { RequestState, RouteRequest } from '../../../../lib/http/request-state.ts';
import { type EventChanges, httpEvent, lambdaContext } from '../../../helpers/lambda.ts';

function stateOf(changes: EventChanges = {}, lambda = lambdaContext()) {
  const lines: string[] = [];
  const log = createLogger({ function: 'test' }, (line) => lines.push(line));
  const event = httpEvent('jobs-search.json', changes);
  return { state: new RequestState(event, lambda, log), lines, event, lambda };
}

const fieldsOf = (lines: string[]) =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('RequestState', () => {
  afterEach(() => {
    delete process.env._X_AMZN_TRACE_ID;
  });

  it('holds the request as received: method in upper case, header names in lower case, the body', () => {
    const { state } = stateOf({
      method: 'patch',
      headers: { 'X-Custom': 'v', 'Content-Type': 'text/plain' },
      body: 'bytes',
    });
    expect(state.method).toBe('PATCH');
    expect(state.headers['x-custom']).toBe('v');
    expect(state.headers['content-type']).toBe('text/plain');
    expect(state.headers['X-Custom']).toBeUndefined();
    expect(state.body.text()).toBe('bytes');
  });

  it('takes GET for an event without a method', () => {
    const { event, lambda } = stateOf();
    delete (event.requestContext as { http?: unknown }).http;
    expect(
      new RequestState(
        event,
        lambda,
        createLogger({}, () => {}),
      ).method,
    ).toBe('GET');
  });

  it("logs with the request's ids and its own trace header, else the process's trace id", () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-process';
    const own = stateOf({ headers: { 'x-amzn-trace-id': 'Root=1-request' } });
    own.state.log.info('one');
    const without = stateOf({ headers: { 'x-amzn-trace-id': undefined } });
    without.state.log.info('two');
    expect(fieldsOf(own.lines)[0]).toMatchObject({
      function: 'test',
      requestId: own.lambda.awsRequestId,
      apiRequestId: own.event.requestContext.requestId,
      traceId: 'Root=1-request',
    });
    expect(fieldsOf(without.lines)[0]).toMatchObject({ traceId: 'Root=1-process' });
  });

  it('marks the first request of the process as its cold start, and no other', async () => {
    vi.resetModules();
    const fresh = (await import(
      '../../../../lib/http/request-state.ts'
    )) as typeof RequestStateModule;
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line));
    for (let i = 0; i < 3; i++) {
      new fresh.RequestState(httpEvent('jobs-search.json'), lambdaContext(), log).log.info('x');
    }
    expect(fieldsOf(lines).map((line) => line.coldStart)).toEqual([true, false, false]);
  });

  it('gives each request metrics of its own', () => {
    const one = stateOf().state;
    const two = stateOf().state;
    one.metrics.count('WebhookDuplicates', {});
    expect(two.metrics.take('test')).toEqual([]);
    expect(one.metrics.take('test')).toHaveLength(1);
  });

  it("hands its calls the function's time left, its metrics and its log", () => {
    let left = 5000;
    const lambda = { ...lambdaContext(), getRemainingTimeInMillis: () => left };
    const { state } = stateOf({}, lambda);
    const call = state.call();
    expect(call.metrics).toBe(state.metrics);
    expect(call.log).toBe(state.log);
    expect(call.remainingMs?.()).toBe(5000);
    left = 10;
    expect(call.remainingMs?.()).toBe(10);
    const local = stateOf({}, { ...lambdaContext(), getRemainingTimeInMillis: undefined as never });
    expect(local.state.call().remainingMs).toBeUndefined();
  });

  it('gathers the targets a handler names, for the request line', () => {
    const { state } = stateOf();
    expect(state.targetFields()).toBeUndefined();
    state.target({ jobIds: ['1', '2'] });
    state.target({ action: 'hello', failedJobIds: [] });
    state.target({ action: 'echo' });
    expect(state.targetFields()).toEqual({ jobIds: ['1', '2'], action: 'echo', failedJobIds: [] });
  });
});

describe('RouteRequest', () => {
  it('gives the handler the validated input and the request as received, never the raw event', () => {
    const { state } = stateOf({ path: '/jobs/search', body: 'raw' });
    state.caller = { id: 'reader', scopes: ['jobs:read'] };
    state.input = { body: { n: 1 }, query: { page: 2 }, path: { id: '7' } };
    const request = new RouteRequest<{ n: number }, { page: number }, { id: string }>(state);
    expect(request.method).toBe('POST');
    expect(request.rawPath).toBe('/jobs/search');
    expect(request.headers).toBe(state.headers);
    expect(request.body).toEqual({ n: 1 });
    expect(request.query).toEqual({ page: 2 });
    expect(request.path).toEqual({ id: '7' });
    expect(request.bytes).toEqual(Buffer.from('raw'));
    expect(request.caller).toEqual({ id: 'reader', scopes: ['jobs:read'] });
    expect(request.log).toBe(state.log);
    expect('event' in request).toBe(false);
  });

  it('reads the logger as it is when asked (with the caller found after it was made)', () => {
    const { state } = stateOf();
    const request = new RouteRequest(state);
    state.log = state.log.child({ caller: 'late' });
    expect(request.log).toBe(state.log);
  });

  it('hands every upstream call one call context, on the request', () => {
    const { state } = stateOf();
    const request = new RouteRequest(state);
    expect(request.call).toBe(request.call);
    expect(request.call.metrics).toBe(state.metrics);
  });

  it("names targets on the request's state", () => {
    const { state } = stateOf();
    new RouteRequest(state).target({ trigger: 'nightly' });
    expect(state.targetFields()).toEqual({ trigger: 'nightly' });
  });

  it("takes '/' for an event without a path", () => {
    const { state } = stateOf();
    delete (state.apiGatewayEvent as { rawPath?: string }).rawPath;
    expect(new RouteRequest(state).rawPath).toBe('/');
  });
});
