/**
 * One argument syntax for every script, node:util's parseArgs: `--flag value` and
 * `--flag=value` alike, a value holding `=` kept whole, and an unknown flag refused (the script
 * prints its usage line and exits 2). Stage parameters (`--param name=value`) are refused when
 * serverless.yml's `params.default` has no such name, with the names it has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { PROJECT_ROOT } from './paths.ts';

/** What the command line got wrong, said in one line before the usage line. */
export class UsageError extends Error {}

/**
 * The flags and positionals of `args`, by `options` (parseArgs's own); throws UsageError for an
 * unknown flag, a flag without its value, or a value given to a switch.
 */
export function parseCommand<const O extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: O,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      throw new UsageError((error as Error).message.split('\n')[0]!);
    }
    throw error;
  }
}

/** For a command that takes no argument: throws UsageError when given one. */
export function noArguments(args: readonly string[]): void {
  const { positionals } = parseCommand(args, {});
  if (positionals.length > 0) throw new UsageError(`unknown argument: ${positionals[0]}`);
}

/**
 * `parse` of this process's command line; for a UsageError, what was wrong and the usage line,
 * then exit 2.
 */
export function commandLine<T>(usage: string, parse: (args: readonly string[]) => T): T {
  try {
    return parse(process.argv.slice(2));
  } catch (error) {
    process.exit(refused(error, usage));
  }
}

/**
 * For a UsageError: prints what was wrong and the usage line, and gives the exit code, 2. Any
 * other error is thrown on.
 */
export function refused(
  error: unknown,
  usage: string,
  err: (line: string) => void = console.error,
): 2 {
  if (!(error instanceof UsageError)) throw error;
  err(error.message);
  err(usage);
  return 2;
}

/** The names of the stage parameters serverless.yml declares (its `params.default`). */
export function stageParamNames(
  yml: string = readFileSync(path.join(PROJECT_ROOT, 'serverless.yml'), 'utf8'),
): string[] {
  const lines = yml.split('\n');
  const start = lines.findIndex((line, i) => line === 'params:' && lines[i + 1] === '  default:');
  if (start < 0) throw new Error('serverless.yml declares no params.default');
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (line.trim() === '' || /^\s*#/.test(line)) continue;
    const name = /^ {4}([A-Za-z]\w*):/.exec(line)?.[1];
    if (name) names.push(name);
    else if (!line.startsWith('     ')) break;
  }
  return names;
}

/**
 * `name=value` of each `--param`, split at the first `=` (the value keeps any other); throws
 * UsageError for one that is not `name=value`, or whose name is not a stage parameter.
 */
export function stageParams(
  given: readonly string[] | undefined,
  known: readonly string[] = stageParamNames(),
): [string, string][] {
  return (given ?? []).map((param) => {
    const equals = param.indexOf('=');
    if (equals <= 0) throw new UsageError(`--param takes <name>=<value>, not "${param}"`);
    const name = param.slice(0, equals);
    if (!known.includes(name)) {
      throw new UsageError(
        `--param ${name}: no such stage parameter; serverless.yml's are ${known.join(', ')}`,
      );
    }
    return [name, param.slice(equals + 1)];
  });
}
