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

/**
 * Answers with the gateway's envelope. `origin` sets `x-platform-apigw-response-origin`, as the
 * platform's gateway does; without it only the body tells who answered.
 */
export function gatewayError(
  res: ServerResponse,
  status: number,
  code: string,
  message = 'error',
  origin?: 'APIGW' | 'ENDPOINT',
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (origin) headers['x-platform-apigw-response-origin'] = origin;
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error: { errorCode: code, message } }));
}

/** Writes `text` one byte every `intervalMs` to a raw socket, until it is done or closed. */
export async function drip(
  write: (chunk: string) => boolean,
  text: string,
  intervalMs: number,
  isClosed: () => boolean,
): Promise<void> {
  for (const char of text) {
    if (isClosed()) return;
    write(char);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
