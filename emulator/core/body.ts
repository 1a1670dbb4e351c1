import type { IncomingMessage } from 'node:http';

export type BodyReadResult =
  | { readonly kind: 'complete'; readonly body: Buffer }
  /** Over the limit: nothing more is kept; `bytesSeen` is the declared or counted size. */
  | { readonly kind: 'too-large'; readonly bytesSeen: number }
  /** The client went away before the body ended. */
  | { readonly kind: 'aborted' };

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

/**
 * Reads a request body up to `limitBytes`. A body declared or found to be larger is not kept:
 * the rest of it is discarded as it arrives, so the client can finish sending and read the
 * answer instead of meeting a reset connection.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyReadResult> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limitBytes) {
    req.resume();
    return Promise.resolve({ kind: 'too-large', bytesSeen: declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (result: BodyReadResult): void => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      req.resume();
      finish({ kind: 'too-large', bytesSeen: received });
    };
    const onEnd = (): void => finish({ kind: 'complete', body: Buffer.concat(chunks, received) });
    const onAbort = (): void => finish({ kind: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}
