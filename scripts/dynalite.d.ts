/** dynalite ships no type declarations of its own: what scripts/local-ledger.ts uses of it. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  export default function dynalite(options: {
    createTableMs?: number;
    deleteTableMs?: number;
  }): Server;
}
