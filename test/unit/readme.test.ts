/**
 * What the README says of the demo secret, held to the secret itself: its table of demo callers
 * names every caller of emulator/demo-secret.json, with its token and scopes, and no other; the
 * callers' doc counts them right. Its route table is made from the route table (scripts/docs.ts,
 * held by test/unit/scripts/docs.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface DemoCaller {
  id: string;
  token: string;
  scopes: string[];
  plan?: Record<string, number>;
  notAfter?: string;
}
const demo = JSON.parse(read('emulator/demo-secret.json')) as { callers: DemoCaller[] };

/** The rows of the README's table whose header starts `| caller | token |`. */
function demoCallerRows(): string[][] {
  const readme = read('README.md');
  const table =
    /\| caller \| token \| scopes \| what it shows \|\n\| [-| ]+\|\n((?:\|.*\|\n)+)/.exec(readme);
  expect(table, "the README's table of demo callers").not.toBeNull();
  return table![1]!
    .trim()
    .split('\n')
    .map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const unquoted = (cell: string) => cell.replaceAll('`', '').split(', ');

describe("the README's demo callers", () => {
  it('are the callers of the demo secret, each with its token and scopes', () => {
    const rows = demoCallerRows();
    expect(rows.map(([id]) => unquoted(id!)[0])).toEqual(demo.callers.map((caller) => caller.id));
    for (const caller of demo.callers) {
      const row = rows.find(([id]) => unquoted(id!)[0] === caller.id)!;
      expect(unquoted(row[1]!), caller.id).toEqual([caller.token]);
      expect(unquoted(row[2]!), caller.id).toEqual(caller.scopes);
    }
  });

  it('say what each shows: the metered one its plan, the expired one its date', () => {
    const rows = demoCallerRows();
    const shows = (id: string) => rows.find(([cell]) => unquoted(cell!)[0] === id)![3]!;
    const metered = demo.callers.find((caller) => caller.plan)!;
    const plan = metered.plan!;
    expect(shows(metered.id)).toContain(`${plan.rateRps} a second, a burst of ${plan.burst}`);
    expect(shows(metered.id)).toContain(`${plan.dayQuotaRequest?.toLocaleString('en')} a day`);
    expect(shows(metered.id)).toContain(`${plan.monthQuotaRequest?.toLocaleString('en')} a month`);
    const expired = demo.callers.find((caller) => caller.notAfter)!;
    expect(shows(expired.id)).toContain(expired.notAfter!.slice(0, 10));
  });

  it('are counted right in docs/callers.md', () => {
    const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
    expect(read('docs/callers.md')).toContain(`The demo secret has ${words[demo.callers.length]}:`);
  });
});
