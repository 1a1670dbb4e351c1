import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  readonly keepAliveTimeoutMs: number;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** Stops listening and destroys every connection, idle keep-alive ones included. */
  close(): Promise<void>;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    // close() only stops accepting; without closeAllConnections a keep-alive socket holds it open.
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export function listen(listener: RequestListener, options: ListenOptions): Promise<RunningServer> {
  const server = createServer(listener);
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({ host: options.host, port, close: () => closeServer(server) });
    });
  });
}

/** http://host:port, with IPv6 literals in brackets. */
export function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
