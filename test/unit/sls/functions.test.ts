/**
 * The function table (sls/functions.ts): every route of the registry is served by one function
 * of it, every module of functions/ is one function's handler, and each function's name, parts
 * of the secret, permissions and limits are what the rest of the package reads.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET_CAPABILITIES } from '../../../lib/core/secret-capabilities.ts';
import { fallbackRoute } from '../../../lib/http/routes/fallback.ts';
import { routes } from '../../../lib/http/routes/index.ts';
import { routeKeyOf } from '../../../lib/http/routes/route.ts';
import { WATCHER_FUNCTION } from '../../../lib/watcher/watcher.ts';
import { CONSUMER_FUNCTION } from '../../../lib/webhooks/consumer.ts';
import {
  handlerModulesOf,
  type LambdaFunction,
  localHandlerOf,
} from '../../../sls/function-entry.ts';
import { FUNCTIONS } from '../../../sls/functions.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const table = Object.values(FUNCTIONS);
const named = (name: string): LambdaFunction => FUNCTIONS[name]!;

describe('the function table', () => {
  it('serves every route of the registry by exactly one function, named as the route says', () => {
    const served = table.flatMap((fn) =>
      fn.routes
        .filter((route) => route !== fallbackRoute)
        .map((route) => [fn.name, route] as const),
    );
    expect(served.map(([, route]) => routeKeyOf(route)).sort()).toEqual(
      routes.map(routeKeyOf).sort(),
    );
    for (const [name, route] of served) expect(route.function, routeKeyOf(route)).toBe(name);
  });

  it("gives API Gateway's catch-all to one function, and no route of the registry", () => {
    const catchAll = table.filter((fn) => 'catchAll' in fn.trigger);
    expect(catchAll.map((fn) => fn.routes)).toEqual([[fallbackRoute]]);
    expect(catchAll[0]?.name).toBe(fallbackRoute.function);
  });

  it('keys each function by its name, each name once', () => {
    for (const [key, fn] of Object.entries(FUNCTIONS)) expect(fn.name).toBe(key);
    expect(new Set(table.map((fn) => fn.name)).size).toBe(table.length);
  });

  it("names the functions no route calls as their handlers' wiring names them", () => {
    const byEvents = table.filter((fn) => fn.routes.length === 0).map((fn) => fn.name);
    expect(byEvents.sort()).toEqual([CONSUMER_FUNCTION, WATCHER_FUNCTION].sort());
    expect(named(CONSUMER_FUNCTION).trigger).toMatchObject({ queue: 'InvocationQueue' });
    expect(named(WATCHER_FUNCTION).trigger).toMatchObject({ schedule: 'rate(5 minutes)' });
  });

  it('points each function at modules of functions/ that are there, and every module at one', () => {
    const modules = table.flatMap(handlerModulesOf);
    for (const module of modules) expect(existsSync(path.join(ROOT, module)), module).toBe(true);
    expect(new Set(modules).size).toBe(modules.length);
    const present = (readdirSync(path.join(ROOT, 'functions'), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `functions/${file.split(path.sep).join('/')}`);
    expect(modules.sort()).toEqual(present.sort());
  });

  it("loads locally the receiver that runs deliveries in process, and the reference's public handlers", () => {
    const receiver = table.find((fn) => fn.throttle === 'webhook')!;
    expect(localHandlerOf(receiver)).toBe('functions/webhooks/receive-local.ts');
    const reference = table.filter((fn) => fn.reference);
    expect(reference.map(localHandlerOf).sort()).toEqual([
      'functions/docs.ts',
      'functions/openapi.ts',
    ]);
    expect(localHandlerOf(named('listJobs'))).toBe('functions/jobs/list.ts');
  });

  it("binds each HTTP function's routes in its handler module", () => {
    for (const fn of table.filter((each) => each.routes.length > 0)) {
      for (const module of handlerModulesOf(fn)) {
        const source = readFileSync(path.join(ROOT, module), 'utf8');
        expect(source, module).toMatch(/export const handler = /);
      }
    }
  });

  it('reads only parts of the secret there are, and hands off exactly where a route does', () => {
    for (const fn of table) {
      for (const part of fn.reads) expect(SECRET_CAPABILITIES).toContain(part);
      expect(fn.handsOff, fn.name).toBe(fn.routes.some((route) => route.handsOff === true));
    }
    // Only the receiver reads the webhooks; no catalogue function the signing keys.
    expect(table.filter((fn) => fn.reads.includes('webhooks')).map((fn) => fn.name)).toEqual([
      'receiveWebhook',
    ]);
    const catalogue = table.filter((fn) => fn.routes.some((route) => route.tag === 'catalogue'));
    expect(catalogue).toHaveLength(4);
    for (const fn of catalogue) expect(fn.reads).toEqual(['catalogue', 'callers']);
  });

  it('keeps HTTP functions inside API Gateway’s 30 s, and names each concurrency by a parameter of serverless.yml', () => {
    const params = readFileSync(path.join(ROOT, 'serverless.yml'), 'utf8');
    for (const fn of table) {
      if (fn.routes.length > 0) expect(fn.timeout, fn.name).toBeLessThan(30);
      expect(fn.memory).toBe(256);
      const param = fn.concurrency && Object.values(fn.concurrency)[0];
      if (param) expect(params, fn.name).toMatch(new RegExp(`^ {4}${param}: \\d+$`, 'm'));
    }
    expect(named('cancelReservedJobs').timeout).toBe(25);
    expect(named('listJobs').timeout).toBe(10);
    expect(named(CONSUMER_FUNCTION).concurrency).toEqual({
      eventSourceMax: 'consumeInvocationsConcurrency',
    });
  });

  it('caps the concurrency of every function that hands off: storing 100 MB takes seconds', () => {
    const handingOff = table.filter((fn) => fn.handsOff);
    expect(handingOff.map((fn) => fn.name)).toEqual([
      'getJobReport',
      'invokeAction',
      'fireTrigger',
      'catalogueLanguage',
      'catalogueMaps',
      'catalogueCaptcha',
    ]);
    for (const fn of handingOff) {
      expect(fn.concurrency, fn.name).toEqual({ reserved: expect.any(String) });
    }
  });

  it('reads the secret only where its function needs it: the functions that read nothing start no extension', () => {
    expect(
      table
        .filter((fn) => fn.reads.length === 0)
        .map((fn) => fn.name)
        .sort(),
    ).toEqual(['fallback', 'health']);
  });
});

describe('the sample events of events/', () => {
  /** The function a sample event starts: its route's, the catch-all's, its queue's or schedule's. */
  const startedBy = (event: Record<string, unknown>): string | undefined =>
    table.find((fn) => {
      const { trigger } = fn;
      if ('queue' in trigger) return Array.isArray(event.Records);
      if ('schedule' in trigger) return event.source === 'aws.events';
      if ('catchAll' in trigger) return event.routeKey === '$default';
      return fn.routes.some((route) => routeKeyOf(route) === event.routeKey);
    })?.name;
  const samples = readdirSync(path.join(ROOT, 'events'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => {
      const event = JSON.parse(readFileSync(path.join(ROOT, 'events', file), 'utf8'));
      return [file, startedBy(event)] as const;
    });

  it('start a function each, and every function has one', () => {
    expect(samples.filter(([, fn]) => fn === undefined).map(([file]) => file)).toEqual([]);
    const started = new Set(samples.map(([, fn]) => fn));
    expect(table.map((fn) => fn.name).filter((name) => !started.has(name))).toEqual([]);
  });
});

describe('the bundles', () => {
  /** The modules of lib/ and functions/ that import a module under a folder. */
  const importersOf = (target: string) => {
    const wanted = path.join(ROOT, target);
    const importers: string[] = [];
    for (const folder of ['lib', 'functions']) {
      for (const file of readdirSync(path.join(ROOT, folder), { recursive: true }) as string[]) {
        const module = path.join(ROOT, folder, file);
        if (!file.endsWith('.ts')) continue;
        for (const [, specifier] of readFileSync(module, 'utf8').matchAll(
          /(?:from|import\()\s*'(\.[^']+)'/g,
        )) {
          const resolved = path.resolve(path.dirname(module), specifier!);
          if (resolved.startsWith(wanted)) importers.push(path.relative(ROOT, module));
        }
      }
    }
    return importers;
  };

  it('carry none of the table: no module of lib/ or functions/ imports it, nor anything of sls/', () => {
    expect(importersOf('sls/')).toEqual([]);
  });
});
