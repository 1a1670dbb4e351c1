// Whether the stage reserves Lambda concurrency at all (a plugin, listed in serverless.yml): the
// `reserveConcurrency` param. `true` (the default): each function keeps the `reservedConcurrency`
// its entry of the function table (sls/functions.ts) gives it. `false`: no function reserves any, for an account whose concurrency
// cannot give it (Lambda keeps 100 of an account's concurrency unreserved, so an account whose
// limit is at most 100, as a new account's may be, can reserve nothing at all; docs/deploy.md,
// "Deploy from zero"). Applied once every function is in the template, so that a function given
// a reservation later is covered with no line of its own. `npm run preflight` adds up what a
// stage reserves by the same rule (`reservedByFunction`).

import type { Custom, Resources } from '../serverless.ts';
import { templateStep } from './template-step.ts';

/** The `reserveConcurrency` param as a boolean; throws on anything but true or false. */
function reservesConcurrency(reserve: unknown): boolean {
  const text = String(reserve ?? 'true').trim();
  if (text !== 'true' && text !== 'false') {
    throw new Error('The reserveConcurrency parameter must be true or false.');
  }
  return text === 'true';
}

/** Removes every function's reserved concurrency where the stage reserves none. */
export function applyReservedConcurrency(
  resources: Resources,
  { reserve }: NonNullable<Custom['reservedConcurrency']>,
): void {
  if (reservesConcurrency(reserve)) return;
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    delete resource.Properties?.ReservedConcurrentExecutions;
  }
}

/**
 * What each function of a stage's resolved configuration (`functions` of serverless.yml, as
 * `serverless print` resolves it) reserves, by function name: none where the stage reserves none.
 */
export function reservedByFunction(
  functions:
    | Readonly<Record<string, { readonly reservedConcurrency?: unknown } | undefined>>
    | undefined,
  { reserve }: NonNullable<Custom['reservedConcurrency']>,
): Record<string, number> {
  if (!reservesConcurrency(reserve)) return {};
  const reserved: Record<string, number> = {};
  for (const [name, fn] of Object.entries(functions ?? {})) {
    const value = Number(fn?.reservedConcurrency);
    if (fn?.reservedConcurrency !== undefined && fn?.reservedConcurrency !== null) {
      reserved[name] = value;
    }
  }
  return reserved;
}

export default templateStep((custom) => custom.reservedConcurrency ?? {}, applyReservedConcurrency);
