'use strict';
// The deployed stack's settings, checked when `serverless package` or `deploy` runs (a plugin,
// listed in serverless.yml), so that a bad or missing setting stops the command instead of
// every function's init in the cloud.
const { setting, ARN } = require('./deploy-env.cjs');

const HTTP_URL = /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const BUS_NAME = /^[A-Za-z0-9._-]{1,256}$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

/** Settings a deployed stage needs, each with what it is for (the error message). */
const REQUIRED = [
  ['SCAN_BASE_URL', 'the base URL of the scan job API, e.g. https://wsc.apigw.example.com'],
  [
    'OPENAPI_BASE_URL',
    'the base URL of the open API catalogue, e.g. https://naveropenapi.apigw.example.com',
  ],
];

/** Stages whose alarms must notify someone: packaging them without a topic stops. */
const STAGES_NEEDING_AN_ALARM_TOPIC = new Set(['prod']);
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

/**
 * Every problem with the deploy-time settings, as messages that name the variable or the
 * stage parameter. `stage` and `alarmActions` are the resolved stage and alarm topics.
 */
function problems({ stage, alarmActions } = { stage: undefined, alarmActions: [] }) {
  const found = [];
  const topic = alarmActions[0];
  if (topic === undefined && STAGES_NEEDING_AN_ALARM_TOPIC.has(stage)) {
    found.push(
      `The alarmTopicArn parameter is required for the ${stage} stage: its alarms (the dead-letter ` +
        'queue, parked invocations, failing functions) must notify someone. Pass ' +
        '--param="alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>".',
    );
  } else if (typeof topic === 'string' && !SNS_TOPIC_ARN.test(topic)) {
    found.push('The alarmTopicArn parameter must be the ARN of an SNS topic.');
  }
  for (const [name, what] of REQUIRED) {
    const value = setting(name);
    if (!value) found.push(`${name} is required to package or deploy a stage: ${what}.`);
    else if (!HTTP_URL.test(value)) found.push(`${name} must be an absolute http(s) URL.`);
  }
  const secretId = setting('SECRET_ID');
  if (secretId && !(ARN.test(secretId) || SECRET_NAME.test(secretId))) {
    found.push('SECRET_ID must be a secret name, or its full or partial ARN.');
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
  return found;
}

class SettingsCheck {
  constructor(serverless, options = {}) {
    this.serverless = serverless;
    this.options = options;
    this.hooks = { 'before:package:initialize': () => this.check() };
  }

  check() {
    if (String(this.serverless.service.custom?.isLocal) === 'true') return;
    const service = this.serverless.service;
    const found = problems({
      // The command's --stage, else the template's default.
      stage: this.options.stage ?? service.provider.stage,
      alarmActions: service.custom?.alarmActions ?? [],
    });
    if (found.length > 0) {
      throw new this.serverless.classes.Error(
        `Deploy settings:\n  - ${found.join('\n  - ')}\nSee docs/deploy.md.`,
      );
    }
  }
}

module.exports = SettingsCheck;
module.exports.problems = problems;
