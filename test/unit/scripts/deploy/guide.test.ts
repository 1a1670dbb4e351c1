/** The docs' shell blocks as a reader runs them (scripts/deploy/guide.ts). */
import { describe, expect, it } from 'vitest';
import {
  bashBlocks,
  blocksOfSection,
  commandsOf,
  fill,
  placeholdersOf,
  regionalArns,
} from '../../../../scripts/deploy/guide.ts';

const FENCE = '```';
const DOC = [
  '# Title',
  '## 0. Deploy',
  `${FENCE}bash`,
  'export STAGE=prod',
  FENCE,
  '### Steps',
  `${FENCE}bash`,
  'aws sns subscribe --notification-endpoint <your email>   # <not this>',
  FENCE,
  `${FENCE}json`,
  '{ "not": "<bash>" }',
  FENCE,
  '## 1. Next',
  `${FENCE}bash`,
  'echo next',
  FENCE,
  '',
].join('\n');

describe('the shell blocks of a document', () => {
  it('reads each bash block with its section and line, and a section with its subsections', () => {
    expect(bashBlocks(DOC).map((block) => [block.section, block.line, block.text])).toEqual([
      ['0. Deploy', 4, 'export STAGE=prod\n'],
      ['Steps', 8, 'aws sns subscribe --notification-endpoint <your email>   # <not this>\n'],
      ['1. Next', 15, 'echo next\n'],
    ]);
    expect(blocksOfSection(DOC, '0. Deploy').map((block) => block.line)).toEqual([4, 8]);
    expect(() => blocksOfSection(DOC, '9. None')).toThrow('no section');
  });

  it('finds what a reader fills in, outside comments and heredoc operators, and fills it', () => {
    const text = 'cat > a.json <<\'JSON\'\n{ "k": "<key>" }\nJSON\nsend <key> <url> # <comment>\n';
    expect(placeholdersOf(text)).toEqual(['<key>', '<url>']);
    expect(
      fill(text, [
        ['<key>', 'K'],
        ['<url>', 'U'],
      ]),
    ).toBe('cat > a.json <<\'JSON\'\n{ "k": "K" }\nJSON\nsend K U # <comment>\n');
  });

  it('splits a block into commands: continued lines, heredocs and loops each one', () => {
    const block = [
      '# a comment',
      'export A=1',
      '',
      'npx serverless deploy --stage prod \\',
      '  --param="x=y"',
      "cat > s.json <<'JSON'",
      '{ "a": 1 }',
      'JSON',
      'for p in a b; do',
      '  echo $p \\',
      '    more',
      'done',
      'echo last   # trailing',
    ].join('\n');
    expect(commandsOf(block)).toEqual([
      'export A=1',
      'npx serverless deploy --stage prod \\\n  --param="x=y"',
      'cat > s.json <<\'JSON\'\n{ "a": 1 }\nJSON',
      'for p in a b; do\n  echo $p \\\n    more\ndone',
      'echo last   # trailing',
    ]);
  });

  it('finds the ARNs that name a region, not a variable or a placeholder', () => {
    expect(
      regionalArns(
        'arn:aws:sns:eu-west-1:123456789012:on-call arn:aws:iam::123456789012:role/x ' +
          'arn:aws:sqs:$AWS_REGION:1:q arn:aws:lambda:<region>:<account>:x "arn:aws:kms:us-gov-west-1:1:key/k"',
      ),
    ).toEqual([
      { arn: 'arn:aws:sns:eu-west-1:123456789012:on-call', region: 'eu-west-1' },
      { arn: 'arn:aws:kms:us-gov-west-1:1:key/k', region: 'us-gov-west-1' },
    ]);
  });
});
