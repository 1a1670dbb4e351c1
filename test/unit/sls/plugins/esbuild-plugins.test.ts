/**
 * The bundles' esbuild plugins (sls/plugins/esbuild-plugins.ts), on real esbuild builds: the
 * HTTP parser written beside a bundle is byte for byte undici's, the parser's constants cut to
 * the tables undici's client reads, its diagnostics cut to its channels, its errors to the classes
 * its bundled modules name, its util to the functions and its symbols to the keys they name, a
 * left-out part of undici says why when reached (and the agent left answers as before), and middy
 * loads Node's web streams only if a handler streams.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import plugins from '../../../../sls/plugins/esbuild-plugins.ts';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../../../..');

/**
 * Bundles `source` as the functions are bundled, and loads the result. The source sits at
 * `where` under a node_modules folder of its own, so that it may require as undici's modules do.
 */
async function bundle(
  source: string,
  where = '.',
  extension: 'cjs' | 'mjs' = 'cjs',
): Promise<{ exports: unknown; bytes: number; outfile: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plugins-'));
  const entryDir = path.join(dir, where);
  mkdirSync(entryDir, { recursive: true });
  const entry = path.join(entryDir, `entry.${extension}`);
  const outfile = path.join(dir, 'out.cjs');
  writeFileSync(entry, source);
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    nodePaths: [path.join(ROOT, 'node_modules')],
    plugins,
    metafile: true,
    logLevel: 'error',
  });
  const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  return { exports: require(outfile), bytes, outfile };
}

describe('the bundles’ esbuild plugins', () => {
  it("keep only the parser's constant tables that undici's client reads, as undici has them", async () => {
    const original = require('undici/lib/llhttp/constants.js') as Record<string, unknown>;
    const { exports } = await bundle(
      "module.exports = require('undici/lib/llhttp/constants.js');",
      'node_modules/undici/lib/dispatcher',
    );
    const client = readFileSync(require.resolve('undici/lib/dispatcher/client-h1.js'), 'utf8');
    const read = [...new Set([...client.matchAll(/constants\.([A-Z_]+)/g)].map((m) => m[1]!))];
    expect(Object.keys(exports as object).sort()).toEqual(read.sort());
    for (const table of read)
      expect((exports as Record<string, unknown>)[table]).toEqual(original[table]);
    expect(Object.keys(original).length).toBeGreaterThan(read.length + 10);
  });

  it("keep undici's diagnostics channels, the very channels a subscriber sees, and none of its debug logging", async () => {
    const original = require('undici/lib/core/diagnostics.js') as {
      channels: Record<string, unknown>;
    };
    const { exports, outfile } = await bundle(
      "module.exports = require('undici/lib/core/diagnostics.js');",
      'node_modules/undici/lib/core',
    );
    const { channels } = exports as typeof original;
    expect(Object.keys(channels).sort()).toEqual(Object.keys(original.channels).sort());
    // diagnostics_channel hands out one channel per name: the bundle's are undici's.
    for (const [name, channel] of Object.entries(original.channels)) {
      expect(channels[name], name).toBe(channel);
    }
    const text = readFileSync(outfile, 'utf8');
    expect(text).not.toContain('debuglog');
    expect(text).toContain('undici:request:create');
  });

  it("keep of undici's error classes those its bundled modules name, each as undici builds it", async () => {
    type ErrorClass = new (message?: string) => Error & { code: string };
    const original = require('undici/lib/core/errors.js') as Record<string, ErrorClass>;
    const { exports } = await bundle(
      "module.exports = require('undici/lib/core/errors.js');",
      'node_modules/undici/lib/dispatcher',
    );
    const kept = exports as Record<string, ErrorClass>;
    // What the client, the pool and the agent throw, and the classes they extend.
    for (const name of [
      'HTTPParserError',
      'SocketError',
      'ConnectTimeoutError',
      'BodyTimeoutError',
    ]) {
      expect(kept[name], name).toBeTypeOf('function');
    }
    expect(kept.RequestAbortedError && kept.AbortError && kept.UndiciError).toBeTruthy();
    // The retry handler's, the proxies', WebSocket's: no bundled module reaches them.
    for (const name of ['RequestRetryError', 'ResponseError', 'SecureProxyConnectionError']) {
      expect(kept[name], name).toBeUndefined();
    }
    expect(Object.keys(kept).length).toBeLessThan(Object.keys(original).length);
    for (const [name, Kept] of Object.entries(kept)) {
      if (name === 'HTTPParserError') continue; // takes (message, code, data)
      const error = new Kept();
      const theirs = new original[name]!();
      expect([error.name, error.code, error.message]).toEqual([
        theirs.name,
        theirs.code,
        theirs.message,
      ]);
      // undici tests its errors by a symbol, so that copies of it agree.
      expect(error instanceof original[name]!, name).toBe(true);
    }
  });

  it("keep of undici's util the functions its bundled modules name, each doing what undici's does", async () => {
    const original = require('undici/lib/core/util.js') as Record<string, unknown>;
    const { exports } = await bundle(
      "module.exports = require('undici/lib/core/util.js');",
      'node_modules/undici/lib/dispatcher',
    );
    const kept = exports as Record<string, unknown>;
    // What the client and the request call.
    for (const name of ['parseOrigin', 'bodyLength', 'errorRequest', 'isValidHTTPToken']) {
      expect(kept[name], name).toBeTypeOf('function');
    }
    expect((kept.parseOrigin as (url: string) => URL)('http://127.0.0.1:8080/').origin).toBe(
      (original.parseOrigin as (url: string) => URL)('http://127.0.0.1:8080/').origin,
    );
    expect((kept.bodyLength as (body: unknown) => number)(Buffer.from('four'))).toBe(4);
    const token = kept.isValidHTTPToken as (text: string) => boolean;
    expect([token('PATCH'), token('bad token')]).toEqual([true, false]);
    // fetch's streams and ranges, the API's body checks: no bundled module reaches them.
    for (const name of ['ReadableStreamFrom', 'parseRangeHeader', 'isDisturbed']) {
      expect(original[name], name).toBeTypeOf('function');
      expect(kept[name], name).toBeUndefined();
    }
    expect(Object.keys(kept).length).toBeLessThan(Object.keys(original).length);
  });

  it("keep of undici's symbols those its bundled modules name, each as undici describes it", async () => {
    const original = require('undici/lib/core/symbols.js') as Record<string, symbol>;
    const { exports } = await bundle(
      "module.exports = require('undici/lib/core/symbols.js');",
      'node_modules/undici/lib/dispatcher',
    );
    const kept = exports as Record<string, symbol>;
    // What the client, the pool and the agent key their state by.
    for (const name of ['kUrl', 'kClose', 'kDispatch', 'kQueue', 'kSocket', 'kConnect']) {
      expect(kept[name], name).toBeTypeOf('symbol');
      expect(kept[name]!.description, name).toBe(original[name]!.description);
    }
    // The proxies', the retries', HTTP/2's: no bundled module reaches them.
    for (const name of ['kHttpProxyAgent', 'kRetryHandlerDefaultRetry', 'kHTTP2Session']) {
      expect(original[name], name).toBeTypeOf('symbol');
      expect(kept[name], name).toBeUndefined();
    }
  });

  it('write undici’s HTTP parser beside the bundle, and hand undici the same bytes', async () => {
    const original = require('undici/lib/llhttp/llhttp_simd-wasm.js') as Buffer;
    const { exports, bytes, outfile } = await bundle(
      "module.exports = require('undici/lib/llhttp/llhttp_simd-wasm.js');",
    );
    const beside = readFileSync(outfile.replace(/\.cjs$/, '.llhttp.wasm'));
    expect(Buffer.compare(beside, original)).toBe(0);
    expect(Buffer.compare(exports as Buffer, original)).toBe(0);
    // Compiles as undici compiles it (WebAssembly is a global the project's types leave out).
    const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Buffer): Promise<object> } })
      .WebAssembly;
    expect(await wasm.compile(exports as Buffer)).toBeDefined();
    // The bundle no longer carries it as text.
    expect(bytes).toBeLessThan(1024);
  });

  it('replace a left-out part of undici with a module that says why, where it is called', async () => {
    // As undici's client requires it.
    const { exports } = await bundle(
      "module.exports = require('./client-h2.js');",
      'node_modules/undici/lib/dispatcher',
    );
    expect(exports).toBeTypeOf('function');
    expect(() => (exports as () => void)()).toThrow(/HTTP\/2 was left out/);
  });

  it('leave out interceptors and stats, and the bundled agent still answers a request', async () => {
    const server = createServer((_request, response) => response.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { exports, outfile } = await bundle(
      "module.exports = require('undici/lib/dispatcher/agent.js');",
    );
    const Agent = exports as typeof import('undici').Agent;
    const agent = new Agent({ connections: 4 });
    try {
      // As lib/upstream/dispatch.ts sends: the dispatch API, with a handler of undici's new API.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        let status = 0;
        const chunks: Buffer[] = [];
        agent.dispatch(
          { origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' },
          {
            onRequestStart: () => {},
            onResponseStart: (_controller, statusCode) => {
              status = statusCode;
            },
            onResponseData: (_controller, chunk) => {
              chunks.push(chunk);
            },
            onResponseEnd: () => resolve({ status, body: Buffer.concat(chunks).toString() }),
            onResponseError: (_controller, error) => reject(error),
          },
        );
      });
      expect(answer).toEqual({ status: 200, body: 'pong' });
      const composed = agent.compose((dispatch) => dispatch);
      expect(() =>
        composed.dispatch({ origin: 'http://127.0.0.1', path: '/', method: 'GET' }, {}),
      ).toThrow(/interceptors were left out/);
      expect(() => agent.stats).toThrow(/stats were left out/);
      expect(readFileSync(outfile, 'utf8')).not.toContain('class WrapHandler');
    } finally {
      await agent.close();
      server.close();
    }
  });

  it('let middy load Node’s web streams only when a handler returns a stream', async () => {
    // middy 7 is published as ES modules only: the functions import it, as here.
    const { outfile } = await bundle(
      "import middy from '@middy/core'; export const handler = middy(async () => 'ok');",
      '.',
      'mjs',
    );
    // In a fresh process: what loading the bundle, then answering once, loads of Node.
    const script = `
      const before = new Set(process.moduleLoadList);
      const { handler } = require(${JSON.stringify(outfile)});
      handler({}, {}).then((answer) => {
        const loaded = process.moduleLoadList.filter((name) => !before.has(name));
        console.log(JSON.stringify({ answer, webStreams: loaded.includes('NativeModule stream/web') }));
      });`;
    const result = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(result).toEqual({ answer: 'ok', webStreams: false });
  });
});
