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
 * Past this much discarded upload the connection is dropped instead: draining is for clients
 * that finish sending and then read the answer, not for endless streams.
 */
const MAX_DRAIN_BYTES = 256 * 1024 * 1024;

/**
 * Reads a request body up to `limitBytes`. A body declared or found to be larger is not kept:
 * the rest of it is discarded as it arrives, and the result comes once the client has finished
 * sending, so that it can read the answer instead of meeting a closed connection (EPIPE).
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyReadResult> {
  const declared = declaredLength(req);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = declared !== undefined && declared > limitBytes;
    const finish = (result: BodyReadResult): void => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (!tooLarge && received <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      tooLarge = true;
      chunks.length = 0;
      if (received > MAX_DRAIN_BYTES) {
        req.destroy();
        finish({ kind: 'aborted' });
      }
    };
    const onEnd = (): void =>
      finish(
        tooLarge
          ? { kind: 'too-large', bytesSeen: Math.max(received, declared ?? 0) }
          : { kind: 'complete', body: Buffer.concat(chunks, received) },
      );
    const onAbort = (): void => finish({ kind: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}
