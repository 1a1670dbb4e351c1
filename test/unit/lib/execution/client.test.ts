import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../lib/core/errors.ts';
import { ExecutionClient, isGatewayAnswer } from '../../../../lib/execution/client.ts';
import { fileSecretSource } from '../../../../lib/secrets/sources.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { type UpstreamAnswer, UpstreamClient } from '../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../lib/upstream/dispatch.ts';
import { testCall } from '../../../helpers/call-context.ts';
import { secretFile } from '../../../helpers/platform.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';

function answer(status: number, body: string, headers: Record<string, string> = {}) {
  return { status, headers, body: Buffer.from(body), attempts: 1 } satisfies UpstreamAnswer;
}

describe('isGatewayAnswer', () => {
  it('believes the response-origin header either way', () => {
    const envelope = '{"error":{"errorCode":"200","message":"Authentication Failed"}}';
    expect(
      isGatewayAnswer(answer(401, envelope, { 'x-ncp-apigw-response-origin': 'APIGW' }), 'NCP'),
    ).toBe(true);
    expect(
      isGatewayAnswer(answer(401, envelope, { 'x-ncp-apigw-response-origin': 'ENDPOINT' }), 'ncp'),
    ).toBe(false);
    expect(
      isGatewayAnswer(answer(200, '{}', { 'x-ncp-apigw-response-origin': 'APIGW' }), 'ncp'),
    ).toBe(true);
  });

  it('without the header, recognises exactly the envelope with its table status', () => {
    const check = (status: number, body: string) =>
      isGatewayAnswer(answer(status, body), 'platform');
    expect(check(429, '{"error":{"errorCode":"400","message":"Quota Exceeded"}}')).toBe(true);
    expect(
      check(504, '{"error":{"errorCode":510,"message":"Endpoint Timeout","details":"x"}}'),
    ).toBe(true);
    // The action's own answers, even when they look similar.
    expect(check(400, '{"error":{"errorCode":"400","message":"Quota Exceeded"}}')).toBe(false);
    expect(check(502, '{"error":"The action failed."}')).toBe(false);
    expect(check(401, '{"error":{"errorCode":"200","message":"x","extra":1}}')).toBe(false);
    expect(check(401, '{"error":{"errorCode":"200","message":"x"},"more":true}')).toBe(false);
    expect(check(404, '{"error":{"errorCode":"N404","message":"no such user"}}')).toBe(false);
    expect(check(503, 'Service Unavailable')).toBe(false);
    expect(check(200, '{"error":{"errorCode":"200","message":"Authentication Failed"}}')).toBe(
      false,
    );
  });
});

describe('ExecutionClient over loopback', () => {
  let server: ScriptedServer;
  let functions: ExecutionClient;

  beforeEach(async () => {
    server = await startScriptedServer();
    const file = await secretFile({
      actions: {
        plain: { url: `${server.url.href}fx/dev/plain?x=1`, apiKey: 'action-key' },
        page: { url: `${server.url.href}fx/dev/page`, web: true },
      },
      triggers: { nightly: { url: `${server.url.href}fx/dev/nightly` } },
    });
    const secrets = new SecretStore(fileSecretSource(file), { ttlMs: 60_000 });
    const http = new UpstreamClient({
      dispatcher: createDispatcher(),
      timeoutMs: 2000,
      backoff: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    functions = new ExecutionClient({ secrets, http, vendor: 'platform' });
  });
  afterEach(async () => {
    await server.close();
  });

  it('refuses a method the target does not run with, before sending anything', async () => {
    await expect(functions.target('action', 'plain', 'GET')).rejects.toMatchObject({
      status: 405,
      headers: { Allow: 'POST' },
    });
    await expect(functions.target('trigger', 'nightly', 'PUT')).rejects.toMatchObject({
      status: 405,
    });
    await expect(functions.target('action', 'page', 'TRACE')).rejects.toMatchObject({
      status: 405,
      headers: { Allow: 'GET, POST, PUT, DELETE, OPTIONS, PATCH, HEAD' },
    });
    expect(server.received).toHaveLength(0);
  });

  it('sends the body as JSON with the API key, unsigned', async () => {
    server.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const target = await functions.target('action', 'plain', 'POST');
    await functions.execute(target, { method: 'POST', result: true, body: '{"a":1}' }, testCall());
    const sent = server.received[0]!;
    expect(sent.url).toBe('/fx/dev/plain?x=1&blocking=true&result=true');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['x-platform-apigw-api-key']).toBe('action-key');
    expect(sent.headers['x-platform-apigw-signature-v2']).toBeUndefined();
    expect(sent.body.toString()).toBe('{"a":1}');
  });

  it('never repeats a POST that reached the action, even on a 503', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error');
    const target = await functions.target('action', 'plain', 'POST');
    await expect(
      functions.execute(target, { method: 'POST', result: true, body: '{}' }, testCall()),
    ).rejects.toBeInstanceOf(UpstreamError);
    expect(server.received).toHaveLength(1);
  });

  it('does not repeat a PUT to a web action either, but repeats a GET', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error');
    const target = await functions.target('action', 'page', 'PUT');
    await expect(
      functions.execute(target, { method: 'PUT', result: true }, testCall()),
    ).rejects.toThrow();
    expect(server.received).toHaveLength(1);
    server.script = (_req, res, index) =>
      index === 1 ? gatewayError(res, 503, '500') : res.writeHead(200).end('ok');
    const answer = await functions.execute(target, { method: 'GET', result: true }, testCall());
    expect(answer.status).toBe(200);
    expect(server.received).toHaveLength(3);
  });

  it("returns the action's own error answer instead of throwing", async () => {
    server.script = (_req, res) =>
      res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"boom"}');
    const target = await functions.target('action', 'plain', 'POST');
    const result = await functions.execute(
      target,
      { method: 'POST', result: true, body: '{}' },
      testCall(),
    );
    expect(result.status).toBe(502);
    expect(result.body.toString()).toBe('{"error":"boom"}');
  });
});
