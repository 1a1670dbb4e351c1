// The deployed stack's settings, checked when `serverless package` or `deploy` runs (a plugin,
// listed in serverless.yml), so that a bad or missing setting stops the command instead of
// every function's init in the cloud.
import * as cors from '../resolvers/cors.ts';
import { ARN, setting } from '../resolvers/deploy-env.ts';
import { awsStandIn, isPublicHttpsUrl } from '../resolvers/hosts.ts';
import { CAPABILITIES, settingOf } from '../resolvers/secrets.ts';
import {
  at,
  type Logging,
  type Options,
  type Plugin,
  type Resources,
  type Serverless,
} from '../serverless.ts';

const HTTP_URL = /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const BUS_NAME = /^[A-Za-z0-9._-]{1,256}$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

/** Settings a deployed stage needs, each with what it is for (the error message). */
const REQUIRED: readonly (readonly [name: string, what: string])[] = [
  ['SCAN_BASE_URL', 'the base URL of the scan job API, e.g. https://wsc.apigw.example.com'],
  [
    'OPENAPI_BASE_URL',
    'the base URL of the open API catalogue, e.g. https://naveropenapi.apigw.example.com',
  ],
];

/**
 * Whether a stage is thrown away with its data: as it declares (the `disposable` param), else
 * as the defaults say (only `dev`). A stage that is kept must have its alarms notify someone and
 * its parked invocations be redrivable, whatever it is called (`production`, `staging`).
 */
function isDisposableStage(stage: string | undefined, disposable: unknown): boolean {
  const declared = String(disposable ?? '').trim();
  return declared === '' ? stage === 'dev' : declared === 'true';
}
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;

/** Hosts a plain http:// URL may name: local stand-ins of the platform and benchmarks. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether credentials may travel to this URL: https, or a loopback host. */
function isSecureUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

/** A URL's scheme and host, as a message may show it (a base URL holds no secret). */
function originOf(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    return 'that';
  }
}
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

/** The region an ARN names ('' for a global resource), or undefined when it is no ARN. */
export function regionOfArn(text: unknown): string | undefined {
  const match = ARN.exec(String(text ?? '').trim());
  return match ? match[2] : undefined;
}

/**
 * The settings that name a resource of a region: each must be in the stack's region (a Lambda
 * function reads a secret, uses a KMS key and attaches a layer of its own region only; an alarm
 * notifies a topic of its own region only).
 */
function regionalSettings({
  alarmActions,
  layers,
}: Pick<DeploySettings, 'alarmActions' | 'layers'>): [name: string, value: string][] {
  return [
    ...alarmActions.map((topic): [string, string] => ['The alarmTopicArn parameter', topic]),
    ...['SECRET_ID', ...CAPABILITIES.map(settingOf), 'SECRET_KMS_KEY_ARN', 'EVENT_BUS_NAME'].map(
      (name): [string, string] => [name, setting(name)],
    ),
    ...(layers ?? [])
      .filter((layer) => typeof layer === 'string')
      .map((layer): [string, string] => ['The secretsExtensionLayerArn parameter', layer]),
  ];
}

/** The settings a package or deploy is checked against. */
interface DeploySettings {
  readonly stage: string | undefined;
  readonly disposable?: unknown;
  readonly alarmActions: readonly string[];
  readonly redrivePrincipal?: unknown;
  readonly region?: string | undefined;
  readonly layers?: readonly unknown[] | undefined;
  readonly command?: string | undefined;
  readonly corsAllowedOrigins?: unknown;
  readonly secretsReader?: unknown;
}

/**
 * Every problem with the deploy-time settings, as messages that name the variable or the
 * stage parameter. `stage` and `alarmActions` are the resolved stage and alarm topics; `region`
 * the stack's. `command` is `package` or `deploy`: a package may be built with no base URLs (to
 * look at the artifacts and the template; see `warnings`), a deploy may not.
 */
export function problems(
  {
    stage,
    disposable,
    alarmActions,
    redrivePrincipal,
    region,
    layers,
    command,
    corsAllowedOrigins,
    secretsReader,
  }: DeploySettings = {
    stage: undefined,
    alarmActions: [],
  },
): string[] {
  const found = [...cors.problemsOf(corsAllowedOrigins)];
  const reader = String(secretsReader ?? '').trim();
  if (reader && !['signed', 'extension', 'sdk'].includes(reader)) {
    found.push(
      'The secretsReader parameter must be signed, extension or sdk (or empty: the default).',
    );
  } else if (reader === 'extension' && !(layers ?? []).some((layer) => typeof layer === 'string')) {
    found.push(
      'The secretsReader parameter is extension, but no layer is attached: set secretsExtensionLayerArn too.',
    );
  }
  const topic = alarmActions[0];
  const kept = !isDisposableStage(stage, disposable);
  const orDisposable =
    ', or declare the stage disposable (--param="disposable=true") if its data may go with it';
  if (topic === undefined && kept) {
    found.push(
      `The alarmTopicArn parameter is required for the ${stage} stage: its alarms (the dead-letter ` +
        'queue, parked invocations, failing functions) must notify someone. Pass ' +
        `--param="alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>"${orDisposable}.`,
    );
  } else if (typeof topic === 'string' && !SNS_TOPIC_ARN.test(topic)) {
    found.push('The alarmTopicArn parameter must be the ARN of an SNS topic.');
  }
  const redrive = String(redrivePrincipal ?? '').trim();
  if (!redrive && kept) {
    found.push(
      `The redrivePrincipalArn parameter is required for the ${stage} stage: only the webhook ` +
        'receiver and it may send to the invocation queue, and redriving parked invocations ' +
        `sends there. Pass --param="redrivePrincipalArn=arn:aws:iam::<account>:role/<on-call role>"${orDisposable}.`,
    );
  } else if (redrive && !IAM_PRINCIPAL_ARN.test(redrive)) {
    found.push('The redrivePrincipalArn parameter must be the ARN of an IAM role or user.');
  }
  const https =
    'https is required when deployed (loopback hosts excepted), so that credentials never travel unencrypted';
  // A kept stage calls the platform on the internet: only a deploy to a stand-in AWS on this
  // machine (the rehearsal) may point it at this machine.
  const publicOnly = kept && !awsStandIn();
  const notPublic = (name: string, url: string): string =>
    `${name} must be an https URL on a public host for the ${stage} stage, not ${url}: ` +
    'a deployed function cannot reach this machine or a private network (a local run left exported?). ' +
    "Set it to the platform's gateway (docs/deploy.md, step 1); only a deploy to a stand-in AWS on " +
    'this machine (AWS_ENDPOINT_URL on loopback, as `npm run rehearse` does) may name this machine.';
  for (const [name, what] of REQUIRED) {
    const value = setting(name);
    if (!value && command === 'package') continue; // warnings()
    if (!value) found.push(`${name} is required to deploy a stage: ${what}.`);
    else if (!HTTP_URL.test(value)) found.push(`${name} must be an absolute http(s) URL.`);
    else if (!isSecureUrl(value)) found.push(`${name} must be an https URL: ${https}.`);
    else if (publicOnly && !isPublicHttpsUrl(value)) found.push(notPublic(name, originOf(value)));
  }
  const serviceUrls = setting('OPENAPI_SERVICE_URLS');
  if (serviceUrls) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(serviceUrls);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      found.push('OPENAPI_SERVICE_URLS must be a JSON object of service to base URL.');
    } else {
      for (const [service, url] of Object.entries(parsed)) {
        if (typeof url !== 'string' || !isSecureUrl(url)) {
          found.push(`OPENAPI_SERVICE_URLS.${service} must be an https URL: ${https}.`);
        } else if (publicOnly && !isPublicHttpsUrl(url)) {
          found.push(notPublic(`OPENAPI_SERVICE_URLS.${service}`, originOf(url)));
        }
      }
    }
  }
  for (const name of ['SECRET_ID', ...CAPABILITIES.map(settingOf)]) {
    const secretId = setting(name);
    if (secretId && !(ARN.test(secretId) || SECRET_NAME.test(secretId))) {
      found.push(`${name} must be a secret name, or its full or partial ARN.`);
    }
  }
  const issuer = setting('JWT_ISSUER_URL');
  const audience = setting('JWT_AUDIENCE');
  if (issuer || audience) {
    if (!issuer || !audience) {
      found.push(
        'JWT_ISSUER_URL and JWT_AUDIENCE go together: set both for JWT callers, or neither.',
      );
    }
    if (issuer && !/^https:\/\/[^\s/?#]+([/?#]\S*)?$/.test(issuer)) {
      found.push(
        'JWT_ISSUER_URL must be the https URL of the token issuer (API Gateway fetches its keys from it).',
      );
    }
    if (audience?.split(',').some((item) => item.trim() === '')) {
      found.push('JWT_AUDIENCE must be one audience, or several separated by commas.');
    }
  }
  const star = setting('JWT_ALLOW_STAR_SCOPE');
  if (star && star !== 'true' && star !== 'false') {
    found.push(
      "JWT_ALLOW_STAR_SCOPE must be true or false (false, or unset: a JWT's * grants nothing).",
    );
  }
  const bus = setting('EVENT_BUS_NAME');
  if (bus && !(ARN.test(bus) || BUS_NAME.test(bus))) {
    found.push('EVENT_BUS_NAME must be an event bus name or ARN.');
  }
  const key = setting('SECRET_KMS_KEY_ARN');
  if (key && !KMS_KEY_ARN.test(key)) {
    found.push(
      'SECRET_KMS_KEY_ARN must be the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<id>).',
    );
  }
  if (region) {
    for (const [name, value] of regionalSettings({ alarmActions, layers })) {
      const where = regionOfArn(value);
      if (where && where !== region) {
        found.push(
          `${name} names a resource of ${where}, but the stack deploys to ${region}: a stack, ` +
            'its secrets, its key, its layer and its alarm topic must be in one region ' +
            '(set AWS_REGION, or pass --region, to the region they are in).',
        );
      }
    }
  }
  return found;
}

/**
 * What a package built without the deploy settings lacks, loudly: it is for looking at (the
 * artifacts, the template), and `serverless deploy` refuses it.
 */
function warnings({ command }: { command?: string | undefined } = {}): string[] {
  if (command !== 'package') return [];
  const missing = REQUIRED.map(([name]) => name).filter((name) => !setting(name));
  if (missing.length === 0) return [];
  return [
    `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: the package is built ` +
      'for inspection only, its functions have no platform to call, and `serverless deploy` ' +
      `refuses it. Set ${missing.join(' and ')} to build a package to deploy (docs/deploy.md).`,
  ];
}

/** Functions of a compiled template whose environment lacks a base URL: never deployed. */
function undeployable(template: { readonly Resources?: Resources } | undefined): string[] {
  const names = new Set<string>();
  for (const resource of Object.values(template?.Resources ?? {})) {
    if (resource?.Type !== 'AWS::Lambda::Function') continue;
    const variables = at(resource, 'Properties', 'Environment', 'Variables') ?? {};
    for (const [name] of REQUIRED) {
      const set = typeof variables === 'object' && variables !== null && name in variables;
      if (set && !String(at(variables, name) ?? '').trim()) names.add(name);
    }
  }
  return [...names];
}

export default class SettingsCheck implements Plugin {
  readonly serverless: Serverless;
  readonly options: Options;
  readonly log: Logging['log'];
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless, options: Options = {}, utils: Logging = {}) {
    this.serverless = serverless;
    this.options = options;
    this.log = utils.log;
    this.hooks = {
      'before:package:initialize': () => this.check(),
      // A package built earlier (`deploy --package <dir>`) is checked again before it deploys.
      'before:deploy:deploy': () => this.checkDeployable(),
    };
  }

  /** `package`, `deploy`, ...: the command serverless runs (undefined when not known). */
  command(): string | undefined {
    return this.serverless.processedInput?.commands?.[0];
  }

  check(): void {
    if (String(this.serverless.service.custom?.isLocal) === 'true') return;
    const service = this.serverless.service;
    const command = this.command();
    const found = problems({
      // The command's --stage, else the template's default.
      stage: this.options.stage ?? service.provider.stage,
      disposable: service.custom?.dataRetention?.disposable,
      alarmActions: service.custom?.alarmActions ?? [],
      redrivePrincipal: service.custom?.redrivePrincipalArn,
      region: this.options.region ?? service.provider.region,
      layers: service.provider.layers,
      command,
      corsAllowedOrigins: service.custom?.corsAllowedOrigins,
      secretsReader: service.provider.environment?.SECRETS_READER,
    });
    if (found.length > 0) {
      throw new this.serverless.classes.Error(
        `Deploy settings:\n  - ${found.join('\n  - ')}\nSee docs/deploy.md.`,
      );
    }
    for (const warning of warnings({ command })) this.warn(warning);
  }

  checkDeployable(): void {
    const missing = undeployable(this.serverless.service.provider.compiledCloudFormationTemplate);
    if (missing.length > 0) {
      throw new this.serverless.classes.Error(
        `Deploy settings:\n  - this package was built without ${missing.join(' and ')}; ` +
          `package it again with ${missing.join(' and ')} set.\nSee docs/deploy.md.`,
      );
    }
  }

  warn(message: string): void {
    if (typeof this.log?.warning === 'function') this.log.warning(message);
    else process.stderr.write(`WARNING: ${message}\n`);
  }
}
