/**
 * docs/deploy.md's secret document, written readable by its owner only whatever the shell's
 * umask; and its on-call role, as the guide creates it: it may only move the dead-letter queue's
 * messages back (read, delete and move them there, and the one send a move needs on the
 * invocation queue), never receive from the invocation queue or send to the dead-letter queue;
 * and the redrive it prints names its destination, since SQS cannot tell the source of a message
 * the consumer sent to the dead-letter queue itself.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashBlocks, commandsOf } from '../../../scripts/deploy/guide.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DOC = readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const QUEUE = `arn:aws:sqs:${REGION}:${ACCOUNT}:platform-gateway-prod-invocations.fifo`;
const DEAD_LETTERS = `arn:aws:sqs:${REGION}:${ACCOUNT}:platform-gateway-prod-invocations-dlq.fifo`;

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: string | string[];
  readonly Condition?: unknown;
}

/** The policy the guide's heredoc writes, its variables as the shell expands them. */
function onCallPolicy(): { Statement: Statement[] } {
  const block = bashBlocks(DOC).find((b) => b.text.includes('cat > on-call-redrive.json'));
  expect(block, 'the on-call role block').toBeDefined();
  const body = /cat > on-call-redrive\.json <<JSON\n([\s\S]*?)\nJSON\n/.exec(block!.text)?.[1];
  const expanded = (body ?? '')
    .replaceAll('$AWS_REGION', REGION)
    .replaceAll('$ACCOUNT', ACCOUNT)
    .replaceAll('$STAGE', 'prod');
  return JSON.parse(expanded);
}

describe("the guide's secret document", () => {
  it('is written 0600 by its heredoc, under the usual umask 022', async () => {
    const docs = ['README.md', 'docs/deploy.md', 'docs/secret.md'];
    // Every command that writes a JSON file whose name says it holds a secret.
    const writers = docs.flatMap((doc) =>
      bashBlocks(readFileSync(path.join(ROOT, doc), 'utf8'))
        .flatMap((block) => commandsOf(block.text))
        .filter((command) => {
          const first = command.split('\n')[0]!;
          return first.includes('<<') && />\s*\S*secret[\w-]*\.json\b/.test(first);
        })
        .map((command) => ({ doc, command })),
    );
    expect(writers.map(({ doc }) => doc)).toContain('docs/deploy.md');
    for (const { doc, command } of writers) {
      const dir = await mkdtemp(path.join(tmpdir(), 'guide-secret-'));
      try {
        execFileSync('bash', ['-c', `umask 022\n${command}`], { cwd: dir });
        const [written] = await readdir(dir);
        expect(written, `${doc}: ${command.split('\n')[0]}`).toMatch(/secret[\w-]*\.json$/);
        const mode = (await stat(path.join(dir, written!))).mode & 0o777;
        expect(mode.toString(8), `${doc}: ${command.split('\n')[0]}`).toBe('600');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
});

const actionsOf = (statement: Statement) => [statement.Action].flat().sort();

describe("the guide's on-call role", () => {
  it('may only read, delete and move the parked messages, and send what a move sends', () => {
    const { Statement: statements } = onCallPolicy();
    expect(statements.every((s) => s.Effect === 'Allow' && !s.Condition)).toBe(true);
    const on = (arn: string) => statements.filter((s) => [s.Resource].flat().includes(arn));
    expect(statements.flatMap((s) => [s.Resource].flat()).sort()).toEqual([DEAD_LETTERS, QUEUE]);
    expect(on(DEAD_LETTERS).flatMap(actionsOf).sort()).toEqual([
      'sqs:CancelMessageMoveTask',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ListMessageMoveTasks',
      'sqs:ReceiveMessage',
      'sqs:StartMessageMoveTask',
    ]);
    // A move needs the starter's sqs:SendMessage on its destination, and nothing else there.
    expect(on(QUEUE).flatMap(actionsOf)).toEqual(['sqs:SendMessage']);
  });

  it('redrives to the invocation queue by name', () => {
    const move = bashBlocks(DOC).find((b) => b.text.includes('start-message-move-task'));
    expect(move?.text).toMatch(
      /--source-arn arn:aws:sqs:<region>:<account>:platform-gateway-<stage>-invocations-dlq\.fifo \\\n\s+--destination-arn arn:aws:sqs:<region>:<account>:platform-gateway-<stage>-invocations\.fifo\n/,
    );
  });
});
