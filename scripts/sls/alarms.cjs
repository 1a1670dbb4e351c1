'use strict';
// Every function's alarms (a plugin, listed in serverless.yml): an errors alarm and a throttles
// alarm, added once the functions are compiled into the template. Its static member is the
// variable resolver of where alarms go: `${file(./scripts/sls/alarms.cjs):alarmActions}`.

class FunctionAlarms {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:package:compileEvents': () => this.addFunctionAlarms() };
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
}

/** Where alarms go: the alarmTopicArn param, or nowhere. */
FunctionAlarms.alarmActions = async ({ resolveVariable }) => {
  const topic = String((await resolveVariable('param:alarmTopicArn')) ?? '').trim();
  return topic ? [topic] : [];
};

module.exports = FunctionAlarms;
