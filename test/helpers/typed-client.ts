/**
 * A typed client generated from the OpenAPI document, as a user of the service would make one:
 * openapi-typescript turns the document into types, openapi-fetch calls with them. The files
 * are written under the repository (so that `openapi-fetch` resolves from node_modules) in a
 * folder that git ignores, and compiled by TypeScript's compiler with tsc's options below, in
 * this process: each compile after the first reads again only the files that changed, where tsc
 * would parse the standard library and the generated types anew each time.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { buildOpenApiDocument } from '../../lib/http/openapi.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * `tsc --noEmit --strict --skipLibCheck --types '' --target es2022 --module nodenext
 * --moduleResolution nodenext`: the client needs no package's global types (its fetch types are
 * the DOM's, of the default library), so none of node_modules/@types is read.
 */
const OPTIONS: ts.CompilerOptions = {
  noEmit: true,
  types: [],
  strict: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
};

export interface GeneratedClient {
  readonly dir: string;
  /** Writes these files beside the generated types. */
  write(files: Record<string, string>): Promise<void>;
  /** Writes these files and compiles them; resolves with the compiler's output. */
  compile(files: Record<string, string>): Promise<{ ok: boolean; output: string }>;
  remove(): Promise<void>;
}

export async function generateTypedClient(): Promise<GeneratedClient> {
  await mkdir(path.join(ROOT, '.esbuild'), { recursive: true });
  const dir = await mkdtemp(path.join(ROOT, '.esbuild', 'typed-client-'));
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument()));
  await writeFile(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
  const host = cachingHost();
  let previous: ts.Program | undefined;
  const write = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      await writeFile(path.join(dir, name), text);
    }
  };
  return {
    dir,
    write,
    async compile(files) {
      await write(files);
      const roots = Object.keys(files).map((name) => path.join(dir, name));
      const program = ts.createProgram(roots, OPTIONS, host, previous);
      previous = program;
      const diagnostics = ts.getPreEmitDiagnostics(program);
      return {
        ok: diagnostics.length === 0,
        output: ts.formatDiagnostics(diagnostics, {
          getCanonicalFileName: (name) => name,
          getCurrentDirectory: () => ROOT,
          getNewLine: () => '\n',
        }),
      };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** tsc's own host, keeping each file parsed for as long as its text stays the same. */
function cachingHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  const parse = host.getSourceFile.bind(host);
  const parsed = new Map<string, ts.SourceFile>();
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = host.readFile(fileName);
    const known = parsed.get(fileName);
    if (known && known.text === text) return known;
    const file = parse(fileName, languageVersion, onError, shouldCreate);
    if (file) parsed.set(fileName, file);
    return file;
  };
  return host;
}
