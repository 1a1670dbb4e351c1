'use strict';
// The deployed stack's settings, decided when `serverless package` or `deploy` runs, so that a
// bad or missing setting stops the command instead of every function's init in the cloud, and
// so that the template holds concrete values (no condition that cfn-lint cannot follow).
//
// As a plugin (listed in serverless.yml), it checks the settings before packaging. Its static
// members are variable resolvers: `${file(./scripts/sls/deploy-settings.cjs):secretResources}`.

const HTTP_URL = /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/;
const ARN = /^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const BUS_NAME = /^[A-Za-z0-9._-]{1,256}$/;
/** Secrets Manager appends `-` and six characters to a secret's name to make its ARN. */
const SECRET_SUFFIX = /-[A-Za-z0-9]{6}$/;

const env = (name) => (process.env[name] ?? '').trim();

/** Settings a deployed stage needs, each with what it is for (the error message). */
const REQUIRED = [
  ['SCAN_BASE_URL', 'the base URL of the scan job API, e.g. https://wsc.apigw.example.com'],
  [
    'OPENAPI_BASE_URL',
    'the base URL of the open API catalogue, e.g. https://naveropenapi.apigw.example.com',
  ],
];

/** Every problem with the deploy-time settings, as messages that name the variable. */
function problems() {
  const found = [];
  for (const [name, what] of REQUIRED) {
    const value = env(name);
    if (!value) found.push(`${name} is required to package or deploy a stage: ${what}.`);
    else if (!HTTP_URL.test(value)) found.push(`${name} must be an absolute http(s) URL.`);
  }
  const secretId = env('SECRET_ID');
  if (secretId && !(ARN.test(secretId) || SECRET_NAME.test(secretId))) {
    found.push('SECRET_ID must be a secret name, or its full or partial ARN.');
  }
  const bus = env('EVENT_BUS_NAME');
  if (bus && !(ARN.test(bus) || BUS_NAME.test(bus))) {
    found.push('EVENT_BUS_NAME must be an event bus name or ARN.');
  }
  const key = env('SECRET_KMS_KEY_ARN');
  if (key && !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(key)) {
    found.push(
      'SECRET_KMS_KEY_ARN must be the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<id>).',
    );
  }
  return found;
}

class DeploySettings {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:package:initialize': () => this.check(),
      'after:package:compileEvents': () => this.addFunctionAlarms(),
    };
  }

  /** An errors alarm and a throttles alarm for every function, notifying the alarm topic. */
  addFunctionAlarms() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    const actions = this.serverless.service.custom.alarmActions ?? [];
    const functions = Object.keys(resources).filter(
      (id) => resources[id].Type === 'AWS::Lambda::Function',
    );
    for (const id of functions) {
      const name = id.replace(/LambdaFunction$/, '');
      for (const [metric, what] of [
        ['Errors', 'failed invocations (a handler that threw, or timed out)'],
        ['Throttles', 'invocations refused for lack of concurrency'],
      ]) {
        resources[`${name}${metric}Alarm`] = {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            AlarmDescription: `${name}: ${what}.`,
            Namespace: 'AWS/Lambda',
            MetricName: metric,
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
            Statistic: 'Sum',
            Period: 300,
            EvaluationPeriods: 1,
            Threshold: 0,
            ComparisonOperator: 'GreaterThanThreshold',
            TreatMissingData: 'notBreaching',
            AlarmActions: actions,
            OKActions: actions,
          },
        };
      }
    }
  }

  check() {
    if (String(this.serverless.service.custom?.isLocal) === 'true') return;
    const found = problems();
    if (found.length > 0) {
      throw new this.serverless.classes.Error(
        `Deploy settings:\n  - ${found.join('\n  - ')}\nSee docs/deploy.md.`,
      );
    }
  }
}

/**
 * The secret's IAM resource(s). A name gets Secrets Manager's 6-character suffix ('-??????', not
 * '-*', which would also match "<name>-other"); a full ARN is used as given; a partial ARN (no
 * suffix) gets the suffix pattern.
 */
DeploySettings.secretResources = async ({ resolveVariable }) => {
  const secretId = env('SECRET_ID') || (await resolveVariable('self:custom.secretName'));
  if (ARN.test(secretId)) {
    const name = secretId.slice(secretId.indexOf(':secret:') + ':secret:'.length);
    return [SECRET_SUFFIX.test(name) ? secretId : `${secretId}-??????`];
  }
  return [
    {
      'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretId}-??????`,
    },
  ];
};

/**
 * Resources that exist only with their setting: kms:Decrypt on the secret's customer-managed
 * key (SECRET_KMS_KEY_ARN), and events:PutEvents on the watcher's bus (EVENT_BUS_NAME).
 */
DeploySettings.optionalResources = async () => {
  const resources = {};
  const key = env('SECRET_KMS_KEY_ARN');
  if (key) {
    resources.DecryptPlatformSecretPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'decrypt-platform-secret',
        Roles: [
          { Ref: 'SecretReaderRole' },
          { Ref: 'WebhookReceiverRole' },
          { Ref: 'InvocationConsumerRole' },
          { Ref: 'WatcherRole' },
        ],
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
  const bus = env('EVENT_BUS_NAME');
  if (bus) {
    resources.PublishScanJobChangesPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'publish-scan-job-changes',
        Roles: [{ Ref: 'WatcherRole' }],
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

/** Where alarms go: the alarmTopicArn param, or nowhere. */
DeploySettings.alarmActions = async ({ resolveVariable }) => {
  const topic = String((await resolveVariable('param:alarmTopicArn')) ?? '').trim();
  return topic ? [topic] : [];
};

/** The AWS Parameters and Secrets Lambda Extension's layer, when the stage names one. */
const extensionLayerOf = async (resolveVariable) =>
  String((await resolveVariable('param:secretsExtensionLayerArn')) ?? '').trim();

DeploySettings.secretsExtensionLayers = async ({ resolveVariable }) => {
  const layer = await extensionLayerOf(resolveVariable);
  return layer ? [layer] : [];
};

/** The extension's local port (its default), for the functions to read the secret from. */
DeploySettings.secretsExtensionPort = async ({ resolveVariable }) =>
  (await extensionLayerOf(resolveVariable)) ? '2773' : '';

module.exports = DeploySettings;
