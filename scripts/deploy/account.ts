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
  /** What it could not check, and why (the endpoint lacks an API): notes, not problems. */
  readonly skipped?: readonly string[];
}

/** Lambda keeps this much of an account's concurrency unreserved (all of it, below this). */
const UNRESERVED_MINIMUM = 100;

const nameOf = (error: unknown) => (error as { name?: string }).name ?? 'Error';
const ARN_PARTS = /^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;

function denied(error: unknown): boolean {
  return /AccessDenied|NotAuthorized|UnauthorizedOperation/.test(nameOf(error));
}

/**
 * Whether the endpoint answered as one that lacks the API: an HTTP 404, 405 or 501 that is no
 * AWS error (the SDK could not read it as one: it has no `$fault`), or an error named so.
 */
function unimplemented(error: unknown): boolean {
  const { $fault, $metadata } = error as {
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode;
  return (
    ($fault === undefined && (status === 404 || status === 405 || status === 501)) ||
    /^NotImplemented/.test(nameOf(error))
  );
}

/** The endpoint of its own the SDK sends a service's calls to, when one is set. */
function endpointOf(service: string): string | undefined {
  const own = process.env[`AWS_ENDPOINT_URL_${service.toUpperCase().replace(/ /g, '_')}`];
  return (own ?? process.env.AWS_ENDPOINT_URL ?? '').trim() || undefined;
}

/** Why a call failed, as one line with what to do. */
function failure(error: unknown, what: string, permission: string): string {
  return denied(error)
    ? `${what}: access denied; the identity running the preflight needs ${permission} (docs/deploy.md, "The deployer's permissions").`
    : `${what}: ${nameOf(error)} (${firstLine(error)}); check the credentials and the region, then run the preflight again.`;
}

/** The first line of an error's message: the SDK adds lines about its own internals. */
const firstLine = (error: unknown) => String((error as Error).message ?? '').split('\n')[0];

/**
 * A call the endpoint does not implement, named as such ("this endpoint does not implement
 * Lambda GetAccountSettings"); undefined for any other error. Only an endpoint set in the
 * environment (a stand-in: moto has no Lambda GetAccountSettings) may lack one: AWS's own
 * endpoints answer their APIs, so anything else there is a failure (failure()).
 */
function notImplemented(error: unknown, service: string, call: string): string | undefined {
  const endpoint = endpointOf(service);
  return endpoint && unimplemented(error)
    ? `this endpoint (${endpoint}) does not implement ${service} ${call}`
    : undefined;
}

/** The note of a check skipped since its call is not implemented (see notImplemented). */
const skippedNote = (lacks: string, check: string) => `${lacks}, so ${check} was not checked`;

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
    const lacks = notImplemented(error, 'STS', 'GetCallerIdentity');
    if (lacks) return { none: lacks };
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
  const skipped: string[] = [];
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
        const lacks = notImplemented(error, 'Secrets Manager', 'GetSecretValue');
        if (lacks) {
          skipped.push(skippedNote(lacks, where));
        } else if (nameOf(error) === 'ResourceNotFoundException') {
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
    ok:
      skipped.length === 0
        ? `${secrets.length} secret(s) exist and parse: ${secrets.map((secret) => secret.id).join(', ')}`
        : '',
    problems,
    skipped,
  };
}

/** Each alarm topic exists (in its own region, which the offline checks hold to the stack's). */
export async function checkTopics(topics: readonly string[]): Promise<Check> {
  const problems: string[] = [];
  const skipped: string[] = [];
  for (const topic of topics) {
    const region = ARN_PARTS.exec(topic)?.[2];
    if (!region) continue; // malformed: the settings check says so
    const client = new SNSClient({ region });
    try {
      await client.send(new GetTopicAttributesCommand({ TopicArn: topic }));
    } catch (error) {
      const lacks = notImplemented(error, 'SNS', 'GetTopicAttributes');
      if (lacks) skipped.push(skippedNote(lacks, `the alarm topic ${topic}`));
      else
        problems.push(
          /NotFound/.test(nameOf(error))
            ? `The alarm topic ${topic} does not exist: create it (aws sns create-topic --name ${topic.split(':').at(-1)} --region ${region}, docs/deploy.md "Deploy from zero") or pass the ARN of one that exists.`
            : failure(error, `The alarm topic ${topic} cannot be read`, 'sns:GetTopicAttributes'),
        );
    } finally {
      client.destroy();
    }
  }
  return {
    ok: skipped.length === 0 ? `alarm topic ${topics.join(', ')} exists` : '',
    problems,
    skipped,
  };
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
    const lacks = notImplemented(error, 'IAM', kind === 'role' ? 'GetRole' : 'GetUser');
    if (lacks) {
      return {
        ok: '',
        problems: [],
        skipped: [skippedNote(lacks, `the redrive principal ${arn}`)],
      };
    }
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

/** What checkConcurrency checks, as a note names it when it cannot. */
const CONCURRENCY = 'the Lambda concurrency the stage reserves';

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
      const lacks = notImplemented(error, 'Lambda', 'GetAccountSettings');
      if (lacks) return { ok: '', problems: [], skipped: [skippedNote(lacks, CONCURRENCY)] };
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
        const lacks = notImplemented(error, 'Lambda', 'GetFunctionConcurrency');
        if (lacks) return { ok: '', problems: [], skipped: [skippedNote(lacks, CONCURRENCY)] };
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
