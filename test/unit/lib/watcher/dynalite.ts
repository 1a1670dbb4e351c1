/**
 * dynalite (DynamoDB on an in-memory LevelDB) on a free loopback port. It ships no type
 * declarations of its own, hence the typed require.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

type Dynalite = (options: { createTableMs?: number; deleteTableMs?: number }) => Server;
const dynalite = createRequire(import.meta.url)('dynalite') as Dynalite;

export async function startDynalite(): Promise<Server> {
  // Tables are ACTIVE at once, so that a test can write right after creating one.
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
