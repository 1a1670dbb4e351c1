import * as esbuild from 'esbuild';
import plugins from './scripts/sls/esbuild-plugins.cjs';
const r = await esbuild.build({ entryPoints: ['functions/jobs/list.ts'], bundle: true, minify: true, platform: 'node', target: 'node22', format: 'cjs', mainFields: ['module','main'], external: ['@aws-sdk/*'], plugins, write: false, metafile: true, outfile: '/tmp/x.cjs' });
const inputs = r.metafile.inputs;
const importers = new Map();
for (const [f, info] of Object.entries(inputs)) for (const imp of info.imports) { if (!importers.has(imp.path)) importers.set(imp.path, []); importers.get(imp.path).push(f); }
for (const target of process.argv.slice(2)) { console.log(target, '<-', importers.get(target)); }
