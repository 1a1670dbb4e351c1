/**
 * The recipes of docs/architecture.md ("Recipes"), held where a forgotten step can be seen: each
 * route of the registry has its function, role, sample event, fuzz request and line in the docs;
 * each catalogue entry its emulator path and its line in docs/catalogue.md; each middleware its
 * place in the stack and in the layout; each scope its line in the callers' table; each secret
 * capability its setting, its stack variable, its fields and its line in docs/secret.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../lib/catalogue/table.js';
import { FIXED_SCOPES } from '../../lib/core/scopes.js';
import { SECRET_CAPABILITIES, secretIdSetting } from '../../lib/core/secret-capabilities.js';
import { FUNCTIONS } from '../../lib/functions.js';
import { routes } from '../../lib/http/routes/index.js';
import { routeKeyOf } from '../../lib/http/routes/route.js';
import { CAPABILITY_FIELDS } from '../../lib/secrets/schema.js';
import { MODULES, VALID } from '../helpers/route-requests.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const secrets = require('../../sls/resolvers/secrets.cjs') as {
  CAPABILITIES: string[];
  settingOf: (capability: string) => string;
};
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const filesIn = (dir: string) => readdirSync(path.join(ROOT, dir));

const sampleRouteKeys = new Set(
  filesIn('events')
    .filter((file) => file.endsWith('.json'))
    .map((file) => (JSON.parse(read(`events/${file}`)) as { routeKey?: string }).routeKey),
);
const readme = read('README.md');
const callersDoc = read('docs/callers.md');
const catalogueDoc = read('docs/catalogue.md');
const architecture = read('docs/architecture.md');
const secretDoc = read('docs/secret.md');
const serverlessYml = read('serverless.yml');
const catalogueRouteKeys = new Set(catalogue.map((entry) => `${entry.method} ${entry.path}`));

describe('recipe: add a route', () => {
  it.each(routes.map((route) => [routeKeyOf(route), route] as const))(
    "%s has its function, role, its function's sample event, fuzz request and documentation",
    (key, route) => {
      expect(Object.keys(FUNCTIONS), 'lib/functions.ts').toContain(route.function);
      const ofFunction = routes.filter((other) => other.function === route.function);
      expect(
        ofFunction.some((other) => sampleRouteKeys.has(routeKeyOf(other))),
        `events/: a sample event for ${route.function} (the routeKey of one of its routes)`,
      ).toBe(true);
      expect(MODULES[route.function], 'test/helpers/route-requests.ts MODULES').toBeDefined();
      expect(VALID[key], 'test/helpers/route-requests.ts VALID').toBeDefined();
      if (catalogueRouteKeys.has(key)) {
        expect(catalogueDoc, 'docs/catalogue.md').toContain(route.path.split('{')[0]);
      } else {
        expect(readme, 'the README route table').toContain(`${route.method} ${route.path}`);
      }
    },
  );

  it('binds every route of the registry in a handler module that exports `handler`', () => {
    for (const fn of new Set(routes.map((route) => route.function))) {
      const module = MODULES[fn]!;
      expect(read(module), module).toMatch(/export const handler = /);
    }
  });
});

describe('recipe: add a catalogue API', () => {
  const emulatorSources = ['emulator/catalogue', 'emulator/catalogue/..']
    .flatMap((dir) => filesIn(dir).filter((file) => file.endsWith('.ts')))
    .map((file) => {
      for (const dir of ['emulator/catalogue', 'emulator']) {
        try {
          return read(`${dir}/${file}`);
        } catch {}
      }
      return '';
    })
    .join('\n');

  it.each(catalogue.map((entry) => [entry.id, entry] as const))(
    '%s has its path in the emulator and its line in docs/catalogue.md',
    (_id, entry) => {
      for (const upstream of entry.upstream.paths) {
        const fixed = upstream.split('{')[0]!.replace(/\/$/, '');
        expect(emulatorSources, `the emulator serves ${upstream}`).toContain(fixed);
      }
      expect(catalogueDoc).toContain(entry.path.split('{')[0]);
    },
  );
});

describe('recipe: add a middleware', () => {
  // The stack, and the binder that hands it the admission (only the functions it binds carry it).
  const stack = read('lib/http/route-stack.ts') + read('lib/http/caller-route.ts');
  const middlewares = filesIn('lib/http/middleware')
    .filter((file) => file.endsWith('.ts') && file !== 'middleware.ts')
    .map((file) => file.replace(/\.ts$/, ''));

  it.each(middlewares)('%s is used by the stack and named in the layout', (name) => {
    expect(stack, 'lib/http/route-stack.ts or caller-route.ts').toContain(
      `./middleware/${name}.js`,
    );
    expect(architecture, 'docs/architecture.md').toContain(name);
  });
});

describe('recipe: add a scope', () => {
  it.each(FIXED_SCOPES)('%s is in the callers table and in the scopes module', (scope) => {
    expect(callersDoc, 'docs/callers.md').toContain(`\`${scope}\``);
    expect(read('lib/core/scopes.ts')).toContain(`\`${scope}\``);
  });
});

describe('recipe: add a secret capability', () => {
  it('is one list in the code and in the stack', () => {
    expect([...SECRET_CAPABILITIES].sort()).toEqual([...secrets.CAPABILITIES].sort());
    expect(Object.keys(CAPABILITY_FIELDS).sort()).toEqual([...SECRET_CAPABILITIES].sort());
  });

  it.each(SECRET_CAPABILITIES)(
    '%s has its setting, its stack variable and its line in docs/secret.md',
    (capability) => {
      const setting = secretIdSetting(capability);
      expect(secrets.settingOf(capability)).toBe(setting);
      expect(serverlessYml, 'serverless.yml provider.environment').toContain(`${setting}:`);
      expect(secretDoc, 'docs/secret.md').toContain(setting);
      expect(CAPABILITY_FIELDS[capability].length).toBeGreaterThan(0);
    },
  );
});
