// The DynamoDB tables' definitions, declared once: billing mode, key and TTL attribute, in
// CloudFormation's property names (which CreateTable shares). The stack's resources read them,
// `${file(./sls/variables.cjs):tables.deliveryLedger.KeySchema}`, and so do the local runs and
// the tests that create these tables (createTableInput).

export interface TableDefinition {
  readonly BillingMode: 'PAY_PER_REQUEST';
  readonly AttributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  readonly KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
}

interface TimeToLive {
  readonly AttributeName: string;
  readonly Enabled: true;
}

/** Webhook deliveries already run (lib/webhooks/ledger.ts): one item per delivery, TTL'd. */
export const deliveryLedger: TableDefinition & { readonly TimeToLiveSpecification: TimeToLive } = {
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'deliveryKey', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'deliveryKey', KeyType: 'HASH' }],
  TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
};

/** The scan job watcher's last view (lib/watcher/dynamo-state-store.ts): one item per job. */
export const watcherState: TableDefinition = {
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'instanceNo', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'instanceNo', KeyType: 'HASH' }],
};

/**
 * The callers' and the account's usage under their plans (lib/usage/dynamo-usage-store.ts): one
 * item per caller with a plan and one for the account (token bucket, day and month counters),
 * and a caller's lease of a long-running route; TTL'd a month after their month ends.
 */
export const usage: TableDefinition & { readonly TimeToLiveSpecification: TimeToLive } = {
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'usageKey', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'usageKey', KeyType: 'HASH' }],
  TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
};

/** CreateTable's input for one of these tables under a name (its TTL is a call of its own). */
export const createTableInput = (
  table: TableDefinition,
  TableName: string,
): TableDefinition & { TableName: string } => ({
  TableName,
  BillingMode: table.BillingMode,
  AttributeDefinitions: table.AttributeDefinitions,
  KeySchema: table.KeySchema,
});
