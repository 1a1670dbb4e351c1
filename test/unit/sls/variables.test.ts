/**
 * The deploy's code as the framework loads it, with no build step: sls/variables.cjs, the one line
 * `${file()}` can run, hands serverless.yml sls/variables.ts, which Node requires itself (it
 * strips the types); every `${file(./sls/variables.cjs):...}` of serverless.yml and
 * sls/resources/*.yml reaches a value there. Each plugin serverless.yml lists is required the same
 * way, as osls requires it, and is a plugin class.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as variables from '../../../sls/variables.ts';

/** Node's own require, as osls calls it (vitest's transform stays out of it). */
const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** serverless.yml and the resources it includes. */
const CONFIGURATION = [
  'serverless.yml',
  ...readdirSync(path.join(ROOT, 'sls/resources')).map((file) => `sls/resources/${file}`),
];

/** Every address the configuration reads of sls/variables.cjs: `iam.roles`, `tables.usage.KeySchema`. */
const addresses = CONFIGURATION.flatMap((file) =>
  [...read(file).matchAll(/file\(\.\/sls\/variables\.cjs\):([\w.]+)\}/g)].map((match) => match[1]!),
);

/** What an address reaches, as the framework follows it: up to the first function, which it calls. */
function reached(root: unknown, address: string): unknown {
  let value = root;
  for (const key of address.split('.')) {
    if (typeof value === 'function') return value;
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

describe('sls/variables.cjs', () => {
  const loaded: unknown = require('../../../sls/variables.cjs');

  it("hands the framework sls/variables.ts's modules, loaded by Node itself", () => {
    expect(Object.keys(loaded as object).sort()).toEqual(Object.keys(variables).sort());
  });

  it('has what each file() variable of serverless.yml and its resources reads', () => {
    expect(addresses.length).toBeGreaterThan(20);
    for (const address of addresses) expect(reached(loaded, address), address).toBeDefined();
    expect(reached(loaded, 'iam.rolez')).toBeUndefined();
  });
});

describe("serverless.yml's plugins of sls/", () => {
  const plugins = [
    ...read('serverless.yml').matchAll(/^ {2}- \.\/(sls\/plugins\/[\w-]+\.\w+)$/gm),
  ].map((match) => match[1]!);

  it('are each required by Node, as osls requires them, and give a plugin class', () => {
    expect(plugins.length).toBeGreaterThan(10);
    for (const plugin of plugins) {
      const loaded = require(path.join(ROOT, plugin)) as { default?: unknown };
      // osls takes a module's default export, if it has one (its require-with-import-fallback).
      expect(typeof (loaded.default ?? loaded), plugin).toBe('function');
    }
  });
});
