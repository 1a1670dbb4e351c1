/**
 * A loopback server that keeps objects as S3's path-style PutObject and GetObject do, so that
 * the real S3 client runs in a unit test: `objects` maps `/bucket/key` to what was put.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';

interface StoredObject {
  readonly body: Buffer;
  readonly contentType: string | undefined;
}

export interface S3StandIn {
  readonly objects: Map<string, StoredObject>;
  /** Where it listens, for a client the code under test makes itself. */
  readonly endpoint: string;
  /** A real S3 client pointed at it (path-style), with throwaway credentials. */
  client(): S3Client;
  close(): Promise<void>;
}

export async function startS3StandIn(): Promise<S3StandIn> {
  const objects = new Map<string, StoredObject>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://s3').pathname);
    if (req.method === 'PUT') {
      objects.set(path, {
        body: Buffer.concat(chunks),
        contentType: req.headers['content-type'],
      });
      res.writeHead(200, { etag: '"etag"' }).end();
      return;
    }
    const object = objects.get(path);
    if (req.method === 'GET' && object) {
      res.writeHead(200, { 'content-type': object.contentType ?? 'application/octet-stream' });
      res.end(object.body);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    objects,
    endpoint,
    client: () =>
      new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
        maxAttempts: 1,
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
