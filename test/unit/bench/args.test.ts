/** The benchmarks' command lines (bench/args.ts): `npm run bench` and `node bench/ab.ts`. */
import { describe, expect, it } from 'vitest';
import { abArgs, benchArgs } from '../../../bench/args.ts';
import { UsageError } from '../../../scripts/local/args.ts';

describe('npm run bench', () => {
  it('takes --flag value and --flag=value alike, and keeps a path that holds =', () => {
    const spaced = benchArgs(['--only', 'floor', '--runs', '7', '--node', '/opt/node=22/bin/node']);
    const joined = benchArgs(['--only=floor', '--runs=7', '--node=/opt/node=22/bin/node']);
    expect(spaced).toEqual(joined);
    expect(spaced).toMatchObject({ only: 'floor', runs: 7, nodes: ['/opt/node=22/bin/node'] });
  });

  it('has the defaults of the sections, and takes several Nodes and sizes', () => {
    expect(benchArgs([])).toEqual({
      only: undefined,
      skipPackage: false,
      runs: undefined,
      nodes: [],
      upstream: 'neutral',
      pin: false,
      source: false,
      sizes: undefined,
    });
    expect(
      benchArgs(['--node', 'a,b', '--node=c', '--sizes', '100,1000', '--pin', '--skip-package']),
    ).toMatchObject({ nodes: ['a', 'b', 'c'], sizes: [100, 1000], pin: true, skipPackage: true });
    expect(benchArgs(['--upstream', 'emulator', '--source'])).toMatchObject({
      upstream: 'emulator',
      source: true,
    });
  });

  it('refuses an unknown flag, section or upstream, and a count that is not one', () => {
    expect(() => benchArgs(['--onyl=floor'])).toThrow(UsageError);
    expect(() => benchArgs(['--only', 'flor'])).toThrow(/--only takes one of overhead, cold, /);
    expect(() => benchArgs(['--upstream=fake'])).toThrow(UsageError);
    expect(() => benchArgs(['--runs', 'seven'])).toThrow(UsageError);
    expect(() => benchArgs(['--sizes=100,x'])).toThrow(UsageError);
    expect(() => benchArgs(['floor'])).toThrow(new UsageError('unknown argument: floor'));
  });
});

describe('node bench/ab.ts', () => {
  it('takes the bundles, the rounds, and --per-round and --event in either form', () => {
    expect(abArgs(['a.cjs', 'b.cjs'])).toEqual({
      files: ['a.cjs', 'b.cjs'],
      rounds: 16,
      perRound: 1500,
      event: 'jobs-list.json',
    });
    expect(
      abArgs(['a.cjs', 'b.cjs', 'c.js', '80', '--per-round', '300', '--event=jobs-report.json']),
    ).toEqual({
      files: ['a.cjs', 'b.cjs', 'c.js'],
      rounds: 80,
      perRound: 300,
      event: 'jobs-report.json',
    });
  });

  it('refuses one bundle, an unknown flag, and anything but a count of rounds', () => {
    expect(() => abArgs(['a.cjs'])).toThrow(new UsageError('two bundles at least are needed'));
    expect(() => abArgs(['a.cjs', 'b.cjs', '--rounds=3'])).toThrow(UsageError);
    expect(() => abArgs(['a.cjs', 'b.cjs', 'c.txt'])).toThrow(
      new UsageError('unknown argument: c.txt'),
    );
    expect(() => abArgs(['a.cjs', 'b.cjs', '8', '9'])).toThrow(UsageError);
    expect(() => abArgs(['a.cjs', 'b.cjs', '--per-round', '0'])).toThrow(UsageError);
  });
});
