/**
 * The once-only store of webhook deliveries on DynamoDB as moto serves it: the same rules as the
 * in-memory ledger and dynalite, on a table declared as the stack declares it (key `deliveryKey`,
 * TTL on `expiresAt`). All but one: moto_server checks a condition and writes in two steps on
 * its request threads, so two concurrent conditional writes can both succeed there (seen in
 * CI: 2 winners of 20). DynamoDB makes each conditional write atomic; the many-concurrent-
 * claims rule is held on dynalite, which does too (test/unit/lib/webhooks/dynamo-ledger.test.ts).
 */
import { UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll } from 'vitest';
import { dynamoDbDeliveryLedger } from '../../lib/webhooks/dynamo-ledger.ts';
import * as tables from '../../sls/resolvers/tables.ts';
import { describeLedgerRules, type LedgerClock } from '../helpers/delivery-ledger-rules.ts';
import { clients, createTable, unique } from './moto.ts';

const client = clients.dynamo();
afterAll(() => client.destroy());

const clock: LedgerClock = { now: 0 };

describeLedgerRules(
  'in DynamoDB (moto)',
  clock,
  async () => {
    const tableName = unique('deliveries');
    await createTable(tableName, tables.deliveryLedger);
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: tables.deliveryLedger.TimeToLiveSpecification,
      }),
    );
    return dynamoDbDeliveryLedger({ tableName, client, now: () => clock.now });
  },
  false,
);
