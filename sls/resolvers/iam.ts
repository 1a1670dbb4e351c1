// IAM, as variable resolvers for serverless.yml: `${file(./sls/variables.cjs):iam.roles}`.
// Every function has a role of its own, so that it may write only its own log group and read
// only the secrets of what it uses; what else a role may do is its entry's `may` in the function
// table (sls/functions.ts), each a policy of PERMISSIONS below. Decided when the command runs,
// from the settings (the secrets' layout, a JWT issuer, a KMS key, an event bus), so that the
// template holds concrete values (no condition that cfn-lint cannot follow).
//
// Every function of the table: what it reads of the secret (by capability:
// sls/resolvers/secrets.ts) and which of the permissions below it has besides its own logs.
// `callers` is dropped when the stage sets a JWT issuer (API Gateway's authorizer checks callers
// then), and, for the reference's functions, while the stage's reference is public (params:
// publicReference).
import type { SecretCapability } from '../../lib/core/secret-capabilities.ts';
import type { Permission } from '../function-entry.ts';
import { FUNCTIONS } from '../functions.ts';
import type { ResolverArgs, ResolveVariable, Resources } from '../serverless.ts';
import { ARN, setting } from './deploy-env.ts';
import { roleOf } from './functions.ts';
import { publicReferenceOf } from './routes.ts';
import { layoutOf } from './secrets.ts';

/** What a statement names: an ARN, or one CloudFormation makes (Fn::Sub, Fn::GetAtt). */
type IamResource =
  | string
  | { readonly 'Fn::Sub': string }
  | { readonly 'Fn::GetAtt': readonly [string, string] };

/** A statement of an IAM policy, as CloudFormation takes it. */
interface Statement {
  readonly Effect: 'Allow';
  readonly Action: string | readonly string[];
  readonly Resource: IamResource | readonly IamResource[];
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

interface Policy {
  readonly PolicyName: string;
  readonly PolicyDocument: {
    readonly Version: '2012-10-17';
    readonly Statement: readonly Statement[];
  };
}

/** A function's role. */
interface Role {
  readonly Type: 'AWS::IAM::Role';
  readonly Properties: {
    readonly AssumeRolePolicyDocument: typeof LAMBDA_TRUST;
    readonly Policies: readonly Policy[];
  };
}

/**
 * The functions whose routes hand off answers too large for a Lambda response (`handsOff` in
 * the route registry): each may write, abort and read objects under its own prefix of the
 * hand-off bucket, `<function>/`, and nowhere else, and the bucket's policy refuses every other
 * principal (sls/resources/hand-off.yml).
 */
export const HAND_OFF_FUNCTIONS: readonly string[] = Object.values(FUNCTIONS)
  .filter((fn) => fn.handsOff)
  .map((fn) => fn.name);

/** The functions that may do one thing of PERMISSIONS (or of the optional policies below). */
const functionsThatMay = (permission: Permission): string[] =>
  Object.values(FUNCTIONS)
    .filter((fn) => fn.may.includes(permission))
    .map((fn) => fn.name);

/**
 * A hand-off function's own prefix of the bucket: PutObject (which covers the multipart calls),
 * AbortMultipartUpload, and GetObject, which the presigned URL it signs for its caller needs
 * (the URL names one object: its key is signed).
 */
const handOffPolicy = (fn: string): Policy => ({
  PolicyName: 'hand-off-answers',
  PolicyDocument: {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject'],
        // CloudFormation's Fn::Sub names the bucket's ARN: `${HandOffBucket.Arn}`.
        Resource: { 'Fn::Sub': `\${HandOffBucket.Arn}/${fn}/*` },
      },
    ],
  },
});

const getAtt = (id: string, attribute = 'Arn'): { 'Fn::GetAtt': [string, string] } => ({
  'Fn::GetAtt': [id, attribute],
});

/**
 * The usage table's items a role may touch, by the key of each (lib/usage/): `caller#<id>` and
 * its shards, `account` and its shards; `lease#cancel-reserved#<id>`. IAM holds a request to
 * them with `dynamodb:LeadingKeys` (Amazon DynamoDB developer guide, "Using IAM policy
 * conditions for fine-grained access control"); which caller's item a function writes is the
 * secret's to say, and no condition can.
 */
const USAGE_KEYS = ['caller#*', 'account', 'account#*'];
const LEASE_KEYS = ['lease#cancel-reserved#*'];
const usageItems = (actions: readonly string[], keys: readonly string[]): Statement => ({
  Effect: 'Allow',
  Action: actions,
  Resource: getAtt('UsageTable'),
  Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } },
});

/** Permissions some functions have, as policies of their roles. */
const PERMISSIONS: Readonly<Record<PolicyPermission, readonly Statement[]>> = {
  // The webhook receiver: sending to the invocation queue; params too large for a message go to
  // the body bucket (lib/webhooks/body-store.ts).
  sendInvocations: [
    { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: getAtt('InvocationQueue') },
    {
      Effect: 'Allow',
      Action: 's3:PutObject',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
      Resource: { 'Fn::Sub': '${DeliveryBodyBucket.Arn}/deliveries/*' },
    },
  ],
  // The queue consumer: what Lambda's SQS event source needs on that one queue, parking in the
  // dead-letter queue with the reason (lib/webhooks/settlement.ts), and the bodies.
  consumeInvocations: [
    {
      Effect: 'Allow',
      Action: [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
      ],
      Resource: getAtt('InvocationQueue'),
    },
    {
      Effect: 'Allow',
      Action: 'sqs:SendMessage',
      Resource: getAtt('InvocationDeadLetterQueue'),
    },
    {
      Effect: 'Allow',
      Action: 's3:GetObject',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
      Resource: { 'Fn::Sub': '${DeliveryBodyBucket.Arn}/deliveries/*' },
    },
  ],
  // Conditional claim, completion, release and parking (lib/webhooks/ledger.ts).
  claimDeliveries: [
    {
      Effect: 'Allow',
      Action: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
      Resource: getAtt('DeliveryLedgerTable'),
    },
  ],
  // The usage plans (lib/usage/dynamo-usage-store.ts): one conditional write an admission (its
  // item read back only where a write was refused and DynamoDB did not return it), on the
  // callers' and the account's items only.
  keepUsage: [usageItems(['dynamodb:UpdateItem', 'dynamodb:GetItem'], USAGE_KEYS)],
  // A caller's lease of cancel-reserved (lib/usage/lease.ts), taken and given up: the one
  // delete the usage table takes, on the leases only.
  holdLeases: [
    usageItems(['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem'], LEASE_KEYS),
  ],
  // GET /usage reads a caller's and the account's usage items, and writes nothing.
  readUsage: [usageItems(['dynamodb:GetItem'], USAGE_KEYS)],
  // The consumer counts the webhook deliveries it runs in the account's usage (never held), on
  // the account's shards.
  countAccountUsage: [usageItems(['dynamodb:UpdateItem', 'dynamodb:GetItem'], ['account#*'])],
  // The watcher's last view (lib/watcher/dynamo-state-store.ts): a Scan of the view, two
  // conditional writes per change, the first pass's baseline in batches, its cursor.
  keepWatcherState: [
    {
      Effect: 'Allow',
      Action: [
        'dynamodb:Scan',
        'dynamodb:UpdateItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
      ],
      Resource: getAtt('WatcherStateTable'),
    },
  ],
};

/**
 * Permissions that are a policy of their own, which exists only with its setting
 * (optionalResources): events:PutEvents on the stage's bus, when EVENT_BUS_NAME names one.
 */
const OPTIONAL_POLICIES = { publishScanJobChanges: 'EVENT_BUS_NAME' } as const;

/** The permissions that are a policy of their role. */
type PolicyPermission = Exclude<Permission, keyof typeof OPTIONAL_POLICIES>;
const isPolicy = (permission: Permission): permission is PolicyPermission =>
  !(permission in OPTIONAL_POLICIES);

/** Secrets Manager appends `-` and six characters to a secret's name to make its ARN. */
const SECRET_SUFFIX = /-[A-Za-z0-9]{6}$/;

/**
 * A secret's IAM resource. A name gets Secrets Manager's 6-character suffix ('-??????', not
 * '-*', which would also match "<name>-other"); a full ARN is used as given; a partial ARN (no
 * suffix) gets the suffix pattern.
 */
export const secretResource = (secretId: string): IamResource => {
  if (ARN.test(secretId)) {
    const name = secretId.slice(secretId.indexOf(':secret:') + ':secret:'.length);
    return SECRET_SUFFIX.test(name) ? secretId : `${secretId}-??????`;
  }
  return {
    'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretId}-??????`,
  };
};

/** What a function reads: capabilities, and the secrets that hold them. */
interface Reads {
  readonly capabilities: readonly SecretCapability[];
  readonly secretIds: readonly string[];
}

/** What each function reads, given the settings: capabilities, and the secrets holding them. */
export async function readsOf(resolveVariable: ResolveVariable): Promise<Record<string, Reads>> {
  const { ids } = await layoutOf(resolveVariable);
  const jwt = Boolean(setting('JWT_ISSUER_URL'));
  const publicReference = await publicReferenceOf(resolveVariable);
  const reads: Record<string, Reads> = {};
  for (const fn of Object.values(FUNCTIONS)) {
    const noCallers = jwt || (fn.reference && publicReference);
    const capabilities = fn.reads.filter((c) => !(noCallers && c === 'callers'));
    reads[fn.name] = { capabilities, secretIds: [...new Set(capabilities.map((c) => ids[c]))] };
  }
  return reads;
}

const LAMBDA_TRUST = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
  ],
};

/**
 * One role per function: its own log group, X-Ray, GetSecretValue on the secrets of what it
 * uses, and its permissions of PERMISSIONS. The framework's default role (which it would widen
 * with the SQS event source's permissions) is never created.
 */
export const roles = async ({
  resolveVariable,
}: ResolverArgs): Promise<{ Resources: Record<string, Role> }> => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const reads = await readsOf(resolveVariable);
  const resources: Record<string, Role> = {};
  for (const { name: fn, may, handsOff } of Object.values(FUNCTIONS)) {
    const secretIds = reads[fn]?.secretIds ?? [];
    const policies: Policy[] = [
      {
        PolicyName: 'write-own-logs',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: {
                'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${service}-${stage}-${fn}:*`,
              },
            },
            // X-Ray segments when tracing is on (params: tracing); X-Ray takes no resource ARN.
            {
              Effect: 'Allow',
              Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
              Resource: '*',
            },
          ],
        },
      },
    ];
    if (secretIds.length > 0) {
      policies.push({
        PolicyName: 'read-own-secrets',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'secretsmanager:GetSecretValue',
              Resource: secretIds.map(secretResource),
            },
          ],
        },
      });
    }
    for (const name of may.filter(isPolicy)) {
      policies.push({
        PolicyName: name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
        PolicyDocument: { Version: '2012-10-17', Statement: PERMISSIONS[name] },
      });
    }
    if (handsOff) policies.push(handOffPolicy(fn));
    resources[roleOf(fn)] = {
      Type: 'AWS::IAM::Role',
      Properties: { AssumeRolePolicyDocument: LAMBDA_TRUST, Policies: policies },
    };
  }
  return { Resources: resources };
};

/**
 * Who may send to the invocation queue (its queue policy refuses anyone else): the receiver's
 * role, and the principal an operator redrives parked invocations with (params:
 * redrivePrincipalArn; a redrive sends to this queue).
 */
export const invocationSenders = async ({
  resolveVariable,
}: ResolverArgs): Promise<IamResource[]> => {
  const redrive = String((await resolveVariable('param:redrivePrincipalArn')) ?? '').trim();
  const receivers = functionsThatMay('sendInvocations').map((fn) => getAtt(roleOf(fn)));
  return [...receivers, ...(redrive ? [redrive] : [])];
};

/** Who may send to the dead-letter queue: the consumer's role, which parks invocations there. */
export const deadLetterSenders = async (): Promise<IamResource[]> =>
  functionsThatMay('consumeInvocations').map((fn) => getAtt(roleOf(fn)));

/** Who may write or read the hand-off bucket's objects: the roles of the functions that hand off. */
export const handOffRoles = async (): Promise<IamResource[]> =>
  HAND_OFF_FUNCTIONS.map((fn) => getAtt(roleOf(fn)));

/**
 * Who may put a delivery body (the receiver's role, which queues the message that refers to it)
 * and who may get one (the consumer's): the body bucket's policy refuses everyone else, as the
 * queue's does.
 */
export const deliveryBodyWriters = async (): Promise<IamResource[]> =>
  functionsThatMay('sendInvocations').map((fn) => getAtt(roleOf(fn)));
export const deliveryBodyReaders = async (): Promise<IamResource[]> =>
  functionsThatMay('consumeInvocations').map((fn) => getAtt(roleOf(fn)));

/**
 * Resources that exist only with their setting: kms:Decrypt on the secrets' customer-managed
 * key (SECRET_KMS_KEY_ARN) for every role that reads a secret, and events:PutEvents on the
 * watcher's bus (EVENT_BUS_NAME).
 */
export const optionalResources = async ({
  resolveVariable,
}: ResolverArgs): Promise<{ Resources: Resources }> => {
  const resources: Resources = {};
  const key = setting('SECRET_KMS_KEY_ARN');
  if (key) {
    const reads = await readsOf(resolveVariable);
    resources.DecryptPlatformSecretPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'decrypt-platform-secret',
        Roles: Object.keys(FUNCTIONS)
          .filter((fn) => (reads[fn]?.secretIds.length ?? 0) > 0)
          .map((fn) => ({ Ref: roleOf(fn) })),
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'kms:Decrypt',
              Resource: key,
              // Only as Secrets Manager decrypts the secret, never directly.
              Condition: {
                StringEquals: {
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
                  'kms:ViaService': { 'Fn::Sub': 'secretsmanager.${AWS::Region}.amazonaws.com' },
                },
              },
            },
          ],
        },
      },
    };
  }
  const bus = setting('EVENT_BUS_NAME');
  if (bus) {
    resources.PublishScanJobChangesPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'publish-scan-job-changes',
        Roles: functionsThatMay('publishScanJobChanges').map((fn) => ({ Ref: roleOf(fn) })),
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'events:PutEvents',
              Resource: ARN.test(bus)
                ? bus
                : {
                    'Fn::Sub': `arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:event-bus/${bus}`,
                  },
            },
          ],
        },
      },
    };
  }
  return { Resources: resources };
};
