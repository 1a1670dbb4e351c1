/** The scripts' one argument syntax (scripts/local/args.ts). */
import { describe, expect, it } from 'vitest';
import {
  noArguments,
  parseCommand,
  refused,
  stageParamNames,
  stageParams,
  UsageError,
} from '../../../../scripts/local/args.ts';

const OPTIONS = {
  stage: { type: 'string' },
  param: { type: 'string', multiple: true },
  force: { type: 'boolean' },
} as const;

describe('parseCommand', () => {
  it('takes --flag value and --flag=value alike, and keeps a value that holds =', () => {
    expect(parseCommand(['--stage', 'prod'], OPTIONS).values).toEqual({ stage: 'prod' });
    expect(parseCommand(['--stage=prod'], OPTIONS).values).toEqual({ stage: 'prod' });
    expect(
      parseCommand(['--param', 'a=b=c', '--param=url=https://x.example.com/?q=1'], OPTIONS).values,
    ).toEqual({ param: ['a=b=c', 'url=https://x.example.com/?q=1'] });
    expect(parseCommand(['in.json', '--force', 'out'], OPTIONS)).toMatchObject({
      values: { force: true },
      positionals: ['in.json', 'out'],
    });
    // After --, a value that starts with "-" is no flag.
    expect(parseCommand(['url', '--', '-token'], OPTIONS).positionals).toEqual(['url', '-token']);
  });

  it('refuses an unknown flag, a flag without its value, and a value given to a switch, in one line each', () => {
    for (const [args, said] of [
      [['--stgae', 'prod'], "Unknown option '--stgae'"],
      [['--stage'], "Option '--stage <value>' argument missing"],
      [['--stage', '--force'], "Option '--stage' argument is ambiguous."],
      [['--force=yes'], "Option '--force' does not take an argument"],
    ] as const) {
      const error = (() => {
        try {
          parseCommand(args, OPTIONS);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error, args.join(' ')).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(said);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('refuses any argument of a command that takes none', () => {
    expect(() => noArguments([])).not.toThrow();
    expect(() => noArguments(['extra'])).toThrow(new UsageError('unknown argument: extra'));
    expect(() => noArguments(['--force'])).toThrow(UsageError);
  });
});

describe('refused', () => {
  it('prints what was wrong, then the usage line, and gives exit code 2', () => {
    const lines: string[] = [];
    expect(refused(new UsageError('no stage'), 'usage: x', (line) => lines.push(line))).toBe(2);
    expect(lines).toEqual(['no stage', 'usage: x']);
  });

  it('throws any other error on', () => {
    expect(() => refused(new Error('broken'), 'usage: x', () => {})).toThrow('broken');
  });
});

describe('stage parameters', () => {
  it("are serverless.yml's params.default keys", () => {
    const names = stageParamNames();
    expect(names).toContain('alarmTopicArn');
    expect(names).toContain('corsAllowedOrigins');
    expect(names).toContain('reserveConcurrency');
    expect(names).not.toContain('default');
    expect(new Set(names).size).toBe(names.length);
    expect(
      stageParamNames(
        'service: x\nparams:\n  default:\n    # a comment\n    one: 1\n\n    two: |\n      text\n    three: ""\n  prod:\n    four: 4\n',
      ),
    ).toEqual(['one', 'two', 'three']);
  });

  it('are split at their first =, a value keeping any other', () => {
    expect(
      stageParams([
        'alarmTopicArn=arn:aws:sns:eu-west-1:1:x',
        'corsAllowedOrigins=https://a=b',
        'tracing=',
      ]),
    ).toEqual([
      ['alarmTopicArn', 'arn:aws:sns:eu-west-1:1:x'],
      ['corsAllowedOrigins', 'https://a=b'],
      ['tracing', ''],
    ]);
    expect(stageParams(undefined)).toEqual([]);
  });

  it('refuses a name serverless.yml does not declare, with the names it does', () => {
    expect(() => stageParams(['alarmTopic=arn'], ['alarmTopicArn', 'tracing'])).toThrow(
      new UsageError(
        "--param alarmTopic: no such stage parameter; serverless.yml's are alarmTopicArn, tracing",
      ),
    );
    expect(() => stageParams(['noequals'])).toThrow(
      new UsageError('--param takes <name>=<value>, not "noequals"'),
    );
    expect(() => stageParams(['=value'])).toThrow(UsageError);
  });
});
