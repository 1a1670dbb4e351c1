/**
 * Section 2 of `npm run bench`, cold start: for every function's deployable bundle (from
 * `serverless package`), its size and the time to load it in a fresh Node process, as Lambda's
 * runtime loads it (median of several runs), under each Node given.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { median } from './harness.ts';
import { deployedEnvironment, loadedBytes, unpackedEntry } from './packaged.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface ColdStartOptions {
  /** The folder of the packaged zips. */
  readonly out: string;
  /** --runs: loads per bundle and Node. */
  readonly runs: number;
  /** This process's Node, then each of --node. */
  readonly nodes: readonly string[];
}

/**
 * Loads a bundle the way Lambda's Node.js runtime does (require() for .cjs, import() for
 * .mjs) in a fresh process, and returns how long that took.
 */
function importOnce(node: string, file: string, nodeOptions: string): number {
  const load = file.endsWith('.cjs') ? 'require(process.argv[1])' : 'await import(process.argv[1])';
  // Marked: a function may log a line of its own while it loads.
  const script = `const t = performance.now(); ${load}; process.stdout.write('\\n@import ' + (performance.now() - t));`;
  const output = execFileSync(
    node,
    [...(file.endsWith('.cjs') ? [] : ['--input-type=module']), '-e', script, file],
    {
      env: {
        PATH: process.env.PATH,
        // The AWS SDK clients are not bundled: Lambda's runtime provides them on NODE_PATH.
        NODE_PATH: path.join(ROOT, 'node_modules'),
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
        // As the template sets it (source maps are off unless a stage turns them on).
        NODE_OPTIONS: nodeOptions,
        // The deployed receiver requires its queue when it loads (nothing is sent while loading).
        INVOCATION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench.fifo',
      },
      encoding: 'utf8',
    },
  );
  const line = output.split('\n').find((l) => l.startsWith('@import '));
  return Number(line?.slice('@import '.length));
}

export function benchColdStart({ out, runs, nodes }: ColdStartOptions): void {
  const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
  const bundles = zips.map((zip) => {
    const name = zip.replace(/\.zip$/, '');
    const entry = unpackedEntry(out, name);
    return {
      name,
      entry,
      nodeOptions: deployedEnvironment(out, name).NODE_OPTIONS ?? '',
      zipBytes: statSync(path.join(out, zip)).size,
      bundleBytes: loadedBytes(entry),
      times: [] as number[],
    };
  });
  for (const node of nodes) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    for (const bundle of bundles) bundle.times = [];
    // Interleaved rounds so that machine noise spreads over every bundle alike.
    for (let round = 0; round < runs; round++) {
      for (const bundle of bundles)
        bundle.times.push(importOnce(node, bundle.entry, bundle.nodeOptions));
    }
    console.info(
      `\n2. Cold start (Node ${version}; import of the packaged bundle in a fresh process, median of ${runs})`,
    );
    console.info(
      '   (bundle KB: the .cjs and the HTTP parser file beside it, what the function loads)',
    );
    console.info('   function              bundle KB   zip KB   import ms (median)   min');
    for (const b of bundles.sort((x, y) => x.name.localeCompare(y.name))) {
      const sizes = `${kb(b.bundleBytes).padStart(9)}${kb(b.zipBytes).padStart(9)}`;
      const times = `${median(b.times).toFixed(1).padStart(21)}${Math.min(...b.times)
        .toFixed(1)
        .padStart(7)}`;
      console.info(`   ${b.name.padEnd(22)}${sizes}${times}`);
    }
  }
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}
