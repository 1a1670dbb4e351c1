import * as esbuild from 'esbuild';
import plugins from '/work/wt-cold/scripts/sls/esbuild-plugins.cjs';
const entry = process.argv[2] ?? 'functions/jobs/list.ts';
const r = await esbuild.build({ entryPoints: [entry], bundle: true, minify: true, platform: 'node', target: 'node22', format: 'cjs', mainFields: ['module','main'], external: ['@aws-sdk/*'], supported: {'dynamic-import': false}, plugins, write: false, metafile: true, outfile: '/tmp/x.cjs', absWorkingDir: '/work/wt-cold' });
const out = Object.values(r.metafile.outputs)[0];
console.log('total', out.bytes);
const byPkg = new Map();
for (const [file, info] of Object.entries(out.inputs)) {
  const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  const key = m ? m[1] : file.split('/').slice(0,2).join('/');
  byPkg.set(key, (byPkg.get(key) ?? 0) + info.bytesInOutput);
}
for (const [k,v] of [...byPkg].sort((a,b)=>b[1]-a[1]).slice(0,25)) console.log(String(v).padStart(8), k);
if (process.argv[3]) for (const [file, info] of Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput).slice(0, Number(process.argv[3]))) console.log(String(info.bytesInOutput).padStart(8), file);
