/**
 * docs/deploy.md's on-call role, as the guide creates it: it may only move the dead-letter queue's
 * messages back (read, delete and move them there, and the one send a move needs on the
 * invocation queue), never receive from the invocation queue or send to the dead-letter queue;
 * and the redrive it prints names its destination, since SQS cannot tell the source of a message
 * the consumer sent to the dead-letter queue itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashBlocks } from '../../../scripts/deploy/guide.ts';

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
