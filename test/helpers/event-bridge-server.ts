/**
 * A loopback server that speaks EventBridge's PutEvents (AWS JSON 1.1 protocol), so that the
 * real SDK client can be exercised without AWS. A test may refuse entries: each entry is
 * offered to `refuse`, and a refused one is answered with an ErrorCode, as EventBridge does.
 * Kept beside moto (the AWS tier) because moto cannot refuse single entries: the watcher's
 * handling of a partly failed PutEvents needs that fault.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: number | string;
}

interface PutEventsCall {
  target: string | undefined;
  authorization: string | undefined;
  entries: ReceivedEntry[];
}

export interface EventBridgeServer {
  readonly endpoint: string;
  readonly calls: PutEventsCall[];
  /** Every entry accepted, in order (refused ones are not in it). */
  readonly accepted: ReceivedEntry[];
  /** An ErrorCode to refuse the entry with, or undefined to accept it. */
  refuse: (entry: ReceivedEntry) => string | undefined;
  /** When set, every call is answered with this HTTP status and exception (the whole call fails). */
  failCalls: { status: number; type: string } | undefined;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEventBridgeServer(): Promise<EventBridgeServer> {
  const state: EventBridgeServer = {
    endpoint: '',
    calls: [],
    accepted: [],
    refuse: () => undefined,
    failCalls: undefined,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { Entries?: ReceivedEntry[] };
    const target = req.headers['x-amz-target'] as string | undefined;
    const entries = body.Entries ?? [];
    state.calls.push({ target, authorization: req.headers.authorization, entries });
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    if (target !== 'AWSEvents.PutEvents') {
      reply(400, { __type: 'UnknownOperationException', message: 'unknown operation' });
      return;
    }
    if (state.failCalls) {
      reply(state.failCalls.status, { __type: state.failCalls.type, message: 'scripted failure' });
      return;
    }
    if (entries.length < 1 || entries.length > 10) {
      reply(400, { __type: 'ValidationException', message: 'Entries must hold 1 to 10 items' });
      return;
    }
    const results = entries.map((entry) => {
      const errorCode = state.refuse(entry);
      if (errorCode) return { ErrorCode: errorCode, ErrorMessage: 'scripted refusal' };
      state.accepted.push(entry);
      return { EventId: randomUUID() };
    });
    reply(200, {
      FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
      Entries: results,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
