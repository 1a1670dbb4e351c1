'use strict';
// esbuild plugins of the function bundles (serverless.yml, custom.esbuild.plugins).
//
// undici carries its HTTP parser twice, as WebAssembly with and without SIMD (70 KB each), and
// loads the one without SIMD only when the other cannot compile. Node 22 on Lambda (x86_64 and
// arm64) runs WebAssembly SIMD, so that copy is left out: were it ever needed, the function
// fails with this message rather than parse HTTP without a parser.
const NON_SIMD_PARSER = /[\\/]llhttp[\\/]llhttp-wasm\.js$/;

const leaveOutNonSimdParser = {
  name: 'leave-out-non-simd-llhttp',
  setup(build) {
    build.onResolve({ filter: /llhttp-wasm\.js$/ }, (args) => {
      const resolved = require('node:path').join(args.resolveDir, args.path);
      if (!NON_SIMD_PARSER.test(resolved)) return undefined;
      return { path: resolved, namespace: 'left-out' };
    });
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({
      contents:
        "throw new Error('undici: this runtime cannot compile WebAssembly SIMD, and the " +
        "non-SIMD HTTP parser was left out of the bundle (scripts/sls/esbuild-plugins.cjs)');",
      loader: 'js',
    }));
  },
};

module.exports = [leaveOutNonSimdParser];
