/** A loopback HTTP server whose every answer the test scripts, recording what it received. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Script = (req: Received, res: ServerResponse, index: number) => unknown;

export interface ScriptedServer {
  readonly url: URL;
  readonly received: Received[];
  script: Script;
  close(): Promise<void>;
}

export async function startScriptedServer(
  script: Script = (_r, res) => res.end(),
): Promise<ScriptedServer> {
  const received: Received[] = [];
  const state = { script };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    received.push(entry);
    await state.script(entry, res, received.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    received,
    get script() {
      return state.script;
    },
    set script(next: Script) {
      state.script = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function gatewayError(res: ServerResponse, status: number, code: string, message = 'error') {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { errorCode: code, message } }));
}
