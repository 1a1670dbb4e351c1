/**
 * The AWS tier's fixtures: the environment that points the real SDK clients at moto, and the
 * resources tests create there (names unique per test).
 */
import { createHash, randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { inject } from 'vitest';
import * as tables from '../../sls/resolvers/tables.ts';

const REGION = 'us-east-1';

/** What the SDK needs to reach moto, as environment variables (the SDK reads them itself). */
export function awsEnv(): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: inject('motoEndpoint'),
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  };
}

/** Sets awsEnv() on process.env (for code that builds clients from it); returns the restore. */
export function useAwsEnv(): () => void {
  const saved = { ...process.env };
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, awsEnv());
  return () => {
    process.env = saved;
  };
}

const config = () => ({
  endpoint: inject('motoEndpoint'),
  region: REGION,
  credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
});

export const clients = {
  secrets: () => new SecretsManagerClient(config()),
  sqs: () => new SQSClient(config()),
  dynamo: () => new DynamoDBClient(config()),
  s3: () => new S3Client({ ...config(), forcePathStyle: true }),
};

export async function createBucket(name: string): Promise<void> {
  const client = clients.s3();
  await client.send(new CreateBucketCommand({ Bucket: name }));
  client.destroy();
}

export const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export async function createSecret(name: string, value: unknown): Promise<string> {
  const client = clients.secrets();
  const created = await client.send(
    new CreateSecretCommand({ Name: name, SecretString: JSON.stringify(value) }),
  );
  client.destroy();
  return created.ARN!;
}

/** One of the stack's tables (sls/resolvers/tables.ts) under a name of its own. */
export async function createTable(name: string, table: tables.TableDefinition): Promise<void> {
  const client = clients.dynamo();
  await client.send(new CreateTableCommand(tables.createTableInput(table, name)));
  client.destroy();
}

/** A FIFO queue as the stack declares it, with a FIFO dead-letter queue. */
export async function createFifoQueue(
  name: string,
  options: { maxReceiveCount?: number; visibilityTimeout?: number } = {},
): Promise<{ url: string; arn: string; deadLetterUrl: string }> {
  const client = clients.sqs();
  const dlq = await client.send(
    new CreateQueueCommand({ QueueName: `${name}-dlq.fifo`, Attributes: { FifoQueue: 'true' } }),
  );
  const dlqArn = (
    await client.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
    )
  ).Attributes?.QueueArn;
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: `${name}.fifo`,
      Attributes: {
        FifoQueue: 'true',
        ContentBasedDeduplication: 'false',
        // As the stack declares it: high-throughput FIFO.
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
        VisibilityTimeout: String(options.visibilityTimeout ?? 30),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: options.maxReceiveCount ?? 5,
        }),
      },
    }),
  );
  const arn = (
    await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }),
    )
  ).Attributes?.QueueArn;
  client.destroy();
  return { url: queue.QueueUrl!, arn: arn!, deadLetterUrl: dlq.QueueUrl! };
}

/** An SQS event as Lambda's event source builds it from received messages. */
export function sqsEventOf(messages: Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map(
      (m): SQSRecord => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body!,
        attributes: m.Attributes as unknown as SQSRecord['attributes'],
        messageAttributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            {
              stringValue: value.StringValue,
              dataType: value.DataType ?? 'String',
              stringListValues: [],
              binaryListValues: [],
            },
          ]),
        ),
        md5OfBody: createHash('md5').update(m.Body!).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: REGION,
      }),
    ),
  };
}
