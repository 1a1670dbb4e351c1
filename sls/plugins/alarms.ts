// Every function's alarms (a plugin, listed in serverless.yml): an errors alarm and a throttles
// alarm, added once the functions are compiled into the template, and the stack's configuration
// alarm. `alarmActions` is the variable resolver of where alarms go:
// `${file(./sls/variables.cjs):alarms.alarmActions}`.
import type { Plugin, ResolverArgs, Resource, Serverless } from '../serverless.ts';

/**
 * The causes of the `ConfigurationErrors` metric (lib/core/configuration-metric.ts) the alarm
 * watches, each a metric of its own (its dimension `Cause`): the secret does not validate, does
 * not exist or may not be read; the platform refuses the credentials it holds.
 */
export const CONFIGURATION_CAUSES = ['secret', 'credentials'] as const;

/**
 * A function met a configuration only an operator can mend: its secret cannot be used, or the
 * platform refuses the credentials in it (the `ConfigurationErrors` metric, by `Cause`; the log
 * line that carries it names the field or the credentials). Calls that need it answer 500
 * meanwhile. One alarm on the sum of the causes.
 */
export function configurationAlarm(actions: readonly string[]): Resource {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription:
        "The service's secret is invalid, missing or not readable, or the platform refuses the " +
        'credentials it holds: calls answer 500 until it is corrected. The function logs name ' +
        'the field or the credentials.',
      Metrics: [
        ...CONFIGURATION_CAUSES.map((cause) => ({
          Id: cause,
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'PlatformGateway',
              MetricName: 'ConfigurationErrors',
              Dimensions: [{ Name: 'Cause', Value: cause }],
            },
            Period: 300,
            Stat: 'Sum',
          },
        })),
        {
          Id: 'errors',
          Label: 'ConfigurationErrors',
          Expression: CONFIGURATION_CAUSES.map((cause) => `FILL(${cause}, 0)`).join(' + '),
          ReturnData: true,
        },
      ],
      ...firesOnAnyCount(actions),
    },
  };
}

/** An alarm's rule: any count in one period fires it, and no data is fine. */
function firesOnAnyCount(actions: readonly string[]) {
  return {
    EvaluationPeriods: 1,
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
    TreatMissingData: 'notBreaching',
    AlarmActions: actions,
    OKActions: actions,
  };
}

export default class FunctionAlarms implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:package:compileEvents': () => this.addFunctionAlarms() };
  }

  /** An errors alarm and a throttles alarm for every function, notifying the alarm topic. */
  addFunctionAlarms(): void {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    const actions = this.serverless.service.custom?.alarmActions ?? [];
    const functions = Object.keys(resources).filter(
      (id) => resources[id]?.Type === 'AWS::Lambda::Function',
    );
    resources.ConfigurationErrorsAlarm = configurationAlarm(actions);
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
            ...firesOnAnyCount(actions),
          },
        };
      }
    }
  }
}

/** Where alarms go: the alarmTopicArn param, or nowhere. */
export const alarmActions = async ({ resolveVariable }: ResolverArgs): Promise<string[]> => {
  const topic = String((await resolveVariable('param:alarmTopicArn')) ?? '').trim();
  return topic ? [topic] : [];
};
