// Types of tables.cjs, for the TypeScript that creates these tables (local runs, tests).

declare namespace tables {
  interface TableDefinition {
    readonly BillingMode: 'PAY_PER_REQUEST';
    readonly AttributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
    readonly KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  }
  interface TimeToLive {
    readonly AttributeName: string;
    readonly Enabled: true;
  }
}

declare const tables: {
  readonly deliveryLedger: tables.TableDefinition & {
    readonly TimeToLiveSpecification: tables.TimeToLive;
  };
  readonly watcherState: tables.TableDefinition;
  readonly usage: tables.TableDefinition & {
    readonly TimeToLiveSpecification: tables.TimeToLive;
  };
  createTableInput(
    table: tables.TableDefinition,
    TableName: string,
  ): tables.TableDefinition & { TableName: string };
};
export = tables;
