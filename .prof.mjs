import * as esbuild from 'esbuild';
import plugins from './scripts/sls/esbuild-plugins.cjs';
await esbuild.build({ entryPoints: ['functions/jobs/list.ts'], bundle: true, minify: false, platform: 'node', target: 'node22', format: 'cjs', mainFields: ['module','main'], external: ['@aws-sdk/*'], plugins, outfile: '/tmp/prof/list.cjs' });
await esbuild.build({ entryPoints: ['bench/floor/undici.ts'], bundle: true, minify: false, platform: 'node', target: 'node22', format: 'cjs', outfile: '/tmp/prof/floor.cjs' });
