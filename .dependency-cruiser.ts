// The import rules of `npm run lint` between the folders of the package (biome lints the code
// itself and bans zod/mini's named `z`): dependency-cruiser resolves each import to the file it
// names and fails on those below. The layers come from the table of docs/architecture.md
// ("## Layers", read by scripts/layers.ts): a row there is the whole of a layer's rule.
// test/unit/scripts/layers.test.ts writes a forbidden and an allowed import for every pair of
// rows and checks what this config makes of them. dependency-cruiser imports a .ts config with
// Node itself, which strips its types.
import type { IConfiguration, IForbiddenRuleType } from 'dependency-cruiser';
import { DOC, type Layer, mayImport, readLayers } from './scripts/layers.ts';

const SERVICE = '^(lib|functions)/';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A row's files: a folder's whole tree, a module itself. */
const pathRe = (row: Layer) => `^${literal(row.path)}${row.path.endsWith('/') ? '' : '$'}`;

const layers = readLayers();

/** One rule per row: its files may import their own row's and those of the rows it names. */
const layerRules = layers.flatMap((row): IForbiddenRuleType[] => {
  const allowed = layers.filter((other) => mayImport(row, other));
  if (allowed.length === layers.length) return [];
  const names = row.mayImport.map((name) => (name === 'lib/' ? 'all of lib/' : `\`${name}\``));
  const may = names.length > 0 ? `itself and ${names.join(', ')}` : 'itself';
  return [
    {
      name: `layer ${row.path}`,
      severity: 'error',
      comment: `${row.path} may import ${may}, nothing else of lib/ or functions/: imports run one way only (the layers table of ${DOC})`,
      from: { path: pathRe(row) },
      to: { path: SERVICE, pathNot: allowed.map(pathRe) },
    },
  ];
});

const config: IConfiguration = {
  forbidden: [
    ...layerRules,
    {
      name: 'no emulator in the service',
      severity: 'error',
      comment:
        'lib/ and functions/ never import the emulator: it is the independent stand-in of the platform (its own signature code checks ours).',
      from: { path: SERVICE },
      to: { path: '^emulator/' },
    },
    {
      name: 'no service in the emulator',
      severity: 'error',
      comment:
        "The emulator never imports the service's code: it checks the service independently (its own signature v2, its own envelope).",
      from: { path: '^emulator/' },
      to: { path: SERVICE },
    },
    {
      name: "no undici's root",
      severity: 'error',
      comment:
        "Use lib/upstream/undici.ts: undici's package root adds about 220 KB and 60 ms of cold start to every bundle (its types may be named: `import type`, `typeof import('undici')`).",
      from: { path: SERVICE },
      to: {
        path: '(^|/)node_modules/undici/index\\.js$',
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'route docs for the document only',
      severity: 'error',
      comment:
        "lib/http/routes/docs/ is read by the OpenAPI document (lib/http/openapi.ts) alone: no function's bundle carries the routes' docs (their types may be named).",
      from: { path: SERVICE, pathNot: ['^lib/http/openapi\\.ts$', '^lib/http/routes/docs/'] },
      to: { path: '^lib/http/routes/docs/', dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'no middy in core',
      severity: 'error',
      comment:
        'lib/core/ is what every function loads, health included: no middy here (lib/http/).',
      from: { path: '^lib/core/' },
      to: { path: '(^|/)node_modules/@middy/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` counts: a layer may not even name another's types.
    tsPreCompilationDeps: true,
    // Packages resolve by their `exports` (txml/txml) to what Node loads, as the bundles do.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};

export default config;
