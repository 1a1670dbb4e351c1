/**
 * What the template must grant each function, made from the function table (sls/functions.ts)
 * and what each of its permissions means as IAM actions, written here apart from the code that
 * grants them (sls/resolvers/iam.ts): the template test holds the packaged stack to it, and the
 * IAM resolver's test the roles it makes. Every function of the table is in each table below, so
 * that none goes unchecked.
 */
import type { Permission } from '../../sls/function-entry.ts';
import { FUNCTIONS } from '../../sls/functions.ts';

export const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
export const SECRET = 'secretsmanager:GetSecretValue';
/**
 * What each permission of the function table (sls/functions.ts, `may`) lets a role do, as the
 * template must grant it: a function may do exactly what its entry says, and nothing else.
 */
const PERMISSION_ACTIONS: Record<Permission, string[]> = {
  // A function that admits requests under the usage plans keeps usage in the usage table.
  keepUsage: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  // ... and cancel-reserved takes and gives up its caller's lease (the one delete of the table).
  holdLeases: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  // GET /usage reads the usage table, and writes nothing.
  readUsage: ['dynamodb:GetItem'],
  sendInvocations: ['sqs:SendMessage', 's3:PutObject'],
  consumeInvocations: [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:ReceiveMessage',
    'sqs:SendMessage',
    's3:GetObject',
  ],
  claimDeliveries: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  countAccountUsage: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  keepWatcherState: [
    'dynamodb:BatchWriteItem',
    'dynamodb:DeleteItem',
    'dynamodb:PutItem',
    'dynamodb:Scan',
    'dynamodb:UpdateItem',
  ],
  // A policy of its own, only where the stage names an event bus (prod here, not dev).
  publishScanJobChanges: [],
};
/** A function whose answers may be handed off writes, aborts and reads under its own prefix. */
const HANDS_OFF = ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'];
export const TABLE = Object.values(FUNCTIONS);
/**
 * The parts of the secret each function reads when prod splits them by capability: a catalogue
 * function never the signing keys or a webhook's secret; only the receiver the webhooks. With a
 * JWT issuer (prod here), no function reads the callers.
 */
export const PROD_READS: Record<string, string[]> = Object.fromEntries(
  TABLE.map((fn) => [fn.name, fn.reads.filter((part) => part !== 'callers').sort()]),
);
/**
 * ... and in dev, where callers carry tokens: every function behind a caller token reads the
 * callers too. The reference (GET /openapi.json, GET /docs) is public by default: it reads none.
 */
export const DEV_READS: Record<string, string[]> = Object.fromEntries(
  TABLE.map((fn) => [
    fn.name,
    fn.reads.filter((part) => !fn.reference || part !== 'callers').sort(),
  ]),
);
/** What each function's own role may do besides its logs (and X-Ray), in dev. */
export const FUNCTION_ACTIONS: Record<string, string[]> = Object.fromEntries(
  TABLE.map((fn) => [
    fn.name,
    [
      ...new Set([
        ...(DEV_READS[fn.name]!.length > 0 ? [SECRET] : []),
        ...fn.may.flatMap((permission) => PERMISSION_ACTIONS[permission]),
        ...(fn.handsOff ? HANDS_OFF : []),
      ]),
    ],
  ]),
);
export const XRAY = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
/** `listJobs` -> `ListJobs`: a function's name in its logical ids. */
export const capitalized = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
