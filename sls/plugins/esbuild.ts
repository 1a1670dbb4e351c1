// serverless-esbuild, for the commands that build and only for them. The plugin's module loads
// its dependencies whatever the command (effect, globby, chokidar, ...): about 0.8 s of CPU on
// each start of the CLI, a third of what `serverless print` costs, and `npm run preflight`
// resolves every stage with `serverless print`. A command that reads, describes or removes a
// stage builds nothing, so it gets a plugin with no hooks; every other command (package, deploy,
// deploy function, invoke local, offline, run, and any this list does not know) gets the hooks
// of serverless-esbuild, constructed as serverless would construct it (they are bound to it).
import { createRequire } from 'node:module';
import type { Logging, Options, Plugin, Serverless } from '../serverless.ts';

/** serverless-esbuild's plugin class, as serverless constructs it (its own types need osls's). */
type EsbuildPlugin = new (serverless: Serverless, options: Options, logging: Logging) => Plugin;

/** Loads serverless-esbuild when a command builds, not when this module loads. */
const require = createRequire(import.meta.url);

/** The commands that build nothing: serverless-esbuild has no hook in their lifecycles. */
const READ_ONLY = new Set([
  'print',
  'info',
  'remove',
  'logs',
  'metrics',
  'rollback',
  'deploy list',
]);

/** Whether a command (the CLI's words, e.g. ['invoke', 'local']) builds the functions. */
export function builds(commands: readonly string[]): boolean {
  const command = commands.join(' ');
  if (READ_ONLY.has(command)) return false;
  // `invoke` calls a deployed function; `invoke local` builds it first.
  if (commands[0] === 'invoke' && commands[1] !== 'local') return false;
  return true;
}

export default class Esbuild implements Plugin {
  readonly plugin?: Plugin;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless, options: Options, logging: Logging) {
    if (builds(serverless.processedInput?.commands ?? [])) {
      const EsbuildServerlessPlugin: EsbuildPlugin = require('serverless-esbuild');
      this.plugin = new EsbuildServerlessPlugin(serverless, options, logging);
      this.hooks = this.plugin.hooks;
      return;
    }
    // What serverless-esbuild declares for every command, so that a function's `skipEsbuild`
    // passes the configuration's validation whatever the command.
    serverless.configSchemaHandler.defineFunctionProperties(serverless.service.provider.name, {
      properties: { skipEsbuild: { type: 'boolean' } },
    });
    this.hooks = {};
  }
}
