/**
 * What the AWS account holds for a stage, read-only: whether credentials answer, each secret
 * exists and parses (its value never printed), the alarm topic and the redrive principal exist,
 * and the Lambda concurrency the stage reserves fits what the account has unreserved. Every
 * client is the AWS SDK's, so AWS_ENDPOINT_URL points them at a stand-in (`npm run rehearse`).
 * Each problem is one line that says what to do.
 */
import { GetRoleCommand, GetUserCommand, IAMClient } from '@aws-sdk/client-iam';
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import {
  documentFileOf,
  documentProblems,
  type SecretStage,
  type StageSecret,
} from './secret-documents.ts';

/** A check's outcome: its problems, or what it found when there are none. */
export interface Check {
  readonly ok: string;
  readonly problems: readonly string[];
}

/** Lambda keeps this much of an account's concurrency unreserved (all of it, below this). */
const UNRESERVED_MINIMUM = 100;

const nameOf = (error: unknown) => (error as { name?: string }).name ?? 'Error';
const ARN_PARTS = /^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;

function denied(error: unknown): boolean {
  return /AccessDenied|NotAuthorized|UnauthorizedOperation/.test(nameOf(error));
}

function failure(error: unknown, what: string, permission: string): string {
  return denied(error)
    ? `${what}: access denied; the identity running the preflight needs ${permission} (docs/deploy.md, "The deployer's permissions").`
    : `${what}: ${nameOf(error)} (${(error as Error).message}); check the credentials and the region, then run the preflight again.`;
}

/**
 * The account the credentials belong to; `undefined` with the reason when there are none, and
 * throws when AWS refuses them.
 */
export async function callerAccount(
  region: string,
): Promise<{ account: string } | { none: string }> {
  const sts = new STSClient({ region });
  try {
    const identity = await sts.send(new GetCallerIdentityCommand({}));
    return { account: identity.Account ?? '' };
  } catch (error) {
    if (nameOf(error) === 'CredentialsProviderError') {
      return { none: 'no AWS credentials found (`aws sts get-caller-identity` must answer)' };
    }
    throw new Error(
      `The AWS credentials are refused (${nameOf(error)}): \`aws sts get-caller-identity\` must answer; renew them or choose another profile (AWS_PROFILE).`,
    );
  } finally {
    sts.destroy();
  }
}

/** Whether each secret exists (`undefined` where that cannot be told). */
export async function secretsExist(
  ids: readonly string[],
  region: string,
): Promise<Map<string, boolean | undefined>> {
  const client = new SecretsManagerClient({ region });
  const found = new Map<string, boolean | undefined>();
  try {
    for (const id of ids) {
      try {
        await client.send(new DescribeSecretCommand({ SecretId: id }));
        found.set(id, true);
      } catch (error) {
        found.set(id, nameOf(error) === 'ResourceNotFoundException' ? false : undefined);
      }
    }
  } finally {
    client.destroy();
  }
  return found;
}

/** Each secret of the stage exists, parses as its functions parse it, and holds what it must. */
export async function checkSecrets(
  secrets: readonly StageSecret[],
  region: string,
  stage: SecretStage,
): Promise<Check> {
  const client = new SecretsManagerClient({ region });
  const problems: string[] = [];
  try {
    for (const secret of secrets) {
      const where = `the secret ${secret.id}`;
      let text: string | undefined;
      try {
        const value = await client.send(new GetSecretValueCommand({ SecretId: secret.id }));
        text = value.SecretString;
        if (text === undefined) {
          problems.push(
            `${where} holds binary data, not a JSON document: put the document as a string (aws secretsmanager put-secret-value --secret-string file://...).`,
          );
          continue;
        }
      } catch (error) {
        if (nameOf(error) === 'ResourceNotFoundException') {
          problems.push(
            ARN_PARTS.test(secret.id)
              ? `${where} does not exist in ${region}: create it, or name an existing one in the setting that gives this ARN.`
              : `${where} does not exist in ${region}: create it: aws secretsmanager create-secret --name ${secret.id} --secret-string file://secrets/${documentFileOf(secret)} --region ${region} (npm run split-secret writes the file).`,
          );
        } else {
          problems.push(
            failure(error, `${where} cannot be read`, 'secretsmanager:GetSecretValue on it'),
          );
        }
        continue;
      }
      problems.push(...documentProblems(text, where, secret.capabilities, stage));
    }
  } finally {
    client.destroy();
  }
  return {
    ok: `${secrets.length} secret(s) exist and parse: ${secrets.map((secret) => secret.id).join(', ')}`,
    problems,
  };
}

/** Each alarm topic exists (in its own region, which the offline checks hold to the stack's). */
export async function checkTopics(topics: readonly string[]): Promise<Check> {
  const problems: string[] = [];
  for (const topic of topics) {
    const region = ARN_PARTS.exec(topic)?.[2];
    if (!region) continue; // malformed: the settings check says so
    const client = new SNSClient({ region });
    try {
      await client.send(new GetTopicAttributesCommand({ TopicArn: topic }));
    } catch (error) {
      problems.push(
        /NotFound/.test(nameOf(error))
          ? `The alarm topic ${topic} does not exist: create it (aws sns create-topic --name ${topic.split(':').at(-1)} --region ${region}, docs/deploy.md "Deploy from zero") or pass the ARN of one that exists.`
          : failure(error, `The alarm topic ${topic} cannot be read`, 'sns:GetTopicAttributes'),
      );
    } finally {
      client.destroy();
    }
  }
  return { ok: `alarm topic ${topics.join(', ')} exists`, problems };
}

/** The redrive principal (an IAM role or user) exists. */
export async function checkPrincipal(arn: string, region: string): Promise<Check> {
  const match = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/(?:[\w+=,.@/-]*\/)?([\w+=,.@-]+)$/.exec(
    arn,
  );
  if (!match) return { ok: '', problems: [] }; // malformed: the settings check says so
  const [, kind, name] = match;
  const client = new IAMClient({ region });
  try {
    if (kind === 'role') await client.send(new GetRoleCommand({ RoleName: name }));
    else await client.send(new GetUserCommand({ UserName: name }));
    return { ok: `redrive principal ${arn} exists`, problems: [] };
  } catch (error) {
    return {
      ok: '',
      problems: [
        nameOf(error) === 'NoSuchEntityException'
          ? `The redrive principal ${arn} does not exist: create the on-call role (docs/deploy.md "Deploy from zero", step 3) or pass the ARN of a role or user that exists.`
          : failure(
              error,
              `The redrive principal ${arn} cannot be read`,
              `iam:Get${kind === 'role' ? 'Role' : 'User'}`,
            ),
      ],
    };
  } finally {
    client.destroy();
  }
}

/** A function's reserved concurrency: what the stage asks, and the param that sets it. */
export interface Reservation {
  readonly fn: string;
  readonly deployedName: string;
  readonly reserved: number;
  readonly param?: string | undefined;
}

/**
 * The account can give what the stage reserves: Lambda refuses a reservation that leaves less
 * than 100 of the account's concurrency unreserved (an account limited to 100 or less can reserve
 * nothing). What a deployed stage already reserves is counted as the account's already.
 */
export async function checkConcurrency(
  reservations: readonly Reservation[],
  region: string,
): Promise<Check> {
  const client = new LambdaClient({ region });
  try {
    let unreserved: number;
    let limit: number;
    try {
      const settings = await client.send(new GetAccountSettingsCommand({}));
      unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions ?? 0;
      limit = settings.AccountLimit?.ConcurrentExecutions ?? 0;
    } catch (error) {
      return {
        ok: '',
        problems: [
          failure(
            error,
            "The account's Lambda concurrency cannot be read",
            'lambda:GetAccountSettings',
          ),
        ],
      };
    }
    let more = 0;
    for (const reservation of reservations) {
      let current = 0;
      try {
        const answer = await client.send(
          new GetFunctionConcurrencyCommand({ FunctionName: reservation.deployedName }),
        );
        current = answer.ReservedConcurrentExecutions ?? 0;
      } catch (error) {
        if (nameOf(error) !== 'ResourceNotFoundException') {
          return {
            ok: '',
            problems: [
              failure(
                error,
                `The reserved concurrency of ${reservation.deployedName} cannot be read`,
                'lambda:GetFunctionConcurrency',
              ),
            ],
          };
        }
      }
      more += Math.max(0, reservation.reserved - current);
    }
    const total = reservations.reduce((sum, each) => sum + each.reserved, 0);
    const list = reservations.map((each) => `${each.fn} ${each.reserved}`).join(', ');
    const reservable = Math.max(0, unreserved - UNRESERVED_MINIMUM);
    const summary = `the stage reserves ${total}${list ? ` (${list})` : ''}; the account has ${unreserved} of ${limit} unreserved`;
    if (more <= reservable) return { ok: `Lambda concurrency: ${summary}`, problems: [] };
    const params = reservations
      .filter((each) => each.param)
      .map((each) => `--param="${each.param}=<n>"`)
      .join(' ');
    return {
      ok: '',
      problems: [
        `Lambda concurrency: ${summary}, and Lambda keeps ${UNRESERVED_MINIMUM} unreserved, so the account can reserve ${reservable} more where the stage needs ${more}: ` +
          `pass --param="reserveConcurrency=false" to reserve none${params ? `, or lower values that total at most ${reservable} (${params})` : ''}, ` +
          'or ask for more (Service Quotas, AWS Lambda, "Concurrent executions"; 1,000 is the default).',
      ],
    };
  } finally {
    client.destroy();
  }
}
