/**
 * npm start's local DynamoDB: the delivery ledger's table and the usage table in one dynalite,
 * named to the functions, and the usage gate counting in it as deployed.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/core/log.ts';
import { admit } from '../../../lib/usage/admission.ts';
import { dynamoDbUsageStore } from '../../../lib/usage/dynamo-usage-store.ts';
import { UsageGate } from '../../../lib/usage/gate.ts';
import { ONE_REQUEST } from '../../../lib/usage/units.ts';
import {
  LOCAL_LEDGER_TABLE,
  LOCAL_USAGE_TABLE,
  startLocalLedger,
} from '../../../scripts/local-ledger.ts';

describe('startLocalLedger', () => {
  it('creates the ledger and usage tables in one dynalite and names them to the functions', async () => {
    const local = await startLocalLedger();
    const client = new DynamoDBClient({
      endpoint: local.env.AWS_ENDPOINT_URL_DYNAMODB,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      expect(local.env).toMatchObject({
        DELIVERY_LEDGER_TABLE: LOCAL_LEDGER_TABLE,
        USAGE_TABLE: LOCAL_USAGE_TABLE,
      });
      const usage = await client.send(new DescribeTableCommand({ TableName: LOCAL_USAGE_TABLE }));
      expect(usage.Table?.KeySchema).toEqual([{ AttributeName: 'usageKey', KeyType: 'HASH' }]);
      const gate = new UsageGate({
        store: dynamoDbUsageStore({ tableName: LOCAL_USAGE_TABLE, client }),
        onStoreFailure: 'closed',
        log: createLogger({}, () => {}),
      });
      const plans = { plan: { dayQuotaRequest: 1 }, accountPlan: undefined };
      expect((await admit(gate, { callerId: 'demo', plans, units: ONE_REQUEST })).admitted).toBe(
        true,
      );
      expect((await admit(gate, { callerId: 'demo', plans, units: ONE_REQUEST })).admitted).toBe(
        false,
      );
    } finally {
      client.destroy();
      await local.close();
    }
  });
});
