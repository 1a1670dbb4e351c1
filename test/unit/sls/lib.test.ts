/**
 * The project's modules as serverless.yml's resolvers and plugins load them (sls/lib.cjs): loaded
 * by Node itself, one module graph per process, each module when first asked for.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const { lib } = require('../../../sls/lib.cjs') as {
  lib: (name: string) => Record<string, unknown>;
};

/** Each name sls/lib.cjs gives, and the module of the project it is. */
const MODULES: Record<string, string> = {
  functions: 'sls/functions.ts',
  routes: 'lib/http/routes/index.ts',
  secretCapabilities: 'lib/core/secret-capabilities.ts',
  errors: 'lib/core/errors.ts',
  envelope: 'lib/http/envelope.ts',
  lambdaLimits: 'lib/core/lambda-limits.ts',
  openapi: 'lib/http/openapi.ts',
  docsAssets: 'lib/http/docs-assets.ts',
};

describe('sls/lib.cjs', () => {
  it('gives every module the resolvers and plugins ask for', () => {
    const asked = readdirSync(path.join(ROOT, 'sls'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.cjs'))
      .flatMap((file) => [
        ...readFileSync(path.join(ROOT, 'sls', file), 'utf8').matchAll(/\blib\('(\w+)'\)/g),
      ])
      .map((match) => match[1]!);
    expect(asked.length).toBeGreaterThan(0);
    for (const name of new Set(asked)) expect(Object.keys(MODULES), name).toContain(name);
  });

  it.each(Object.entries(MODULES))(
    'gives %s (%s) with every export of the module',
    async (name, file) => {
      const own = (await import(path.join(ROOT, file))) as Record<string, unknown>;
      expect(Object.keys(lib(name)).sort()).toEqual(Object.keys(own).sort());
    },
  );

  it('loads once per process: one module graph for every resolver and plugin', () => {
    expect(lib('routes')).toBe(lib('routes'));
    // The envelope's errors are the errors module's classes, as the plugins throw them.
    const { NotFoundError, ServiceError } = lib('errors') as Record<string, new () => Error>;
    expect(new NotFoundError!()).toBeInstanceOf(ServiceError!);
    const { encodeError } = lib('envelope') as {
      encodeError: (error: Error, format: string) => { statusCode: number; body: string };
    };
    expect(encodeError(new NotFoundError!(), 'json')).toMatchObject({ statusCode: 404 });
  });

  it('gives the same answers as the modules themselves', async () => {
    const { routes } = await import('../../../lib/http/routes/index.ts');
    const bundled = lib('routes').routes as typeof routes;
    expect(bundled.map((route) => `${route.method} ${route.path}`)).toEqual(
      routes.map((route) => `${route.method} ${route.path}`),
    );
    // A file its module finds through import.meta.url: the renderer's, from node_modules.
    const { rendererFile } = await import('../../../lib/http/docs-assets.ts');
    const bundledFile = (lib('docsAssets') as { rendererFile: typeof rendererFile }).rendererFile;
    expect(bundledFile('swagger-ui.css')).toEqual(rendererFile('swagger-ui.css'));
    expect(bundledFile('swagger-ui.css')?.gzipped.length).toBeGreaterThan(1000);
  });

  it('refuses a name it does not know', () => {
    expect(() => lib('nothing')).toThrow('sls/lib.cjs: no module named nothing');
  });
});
