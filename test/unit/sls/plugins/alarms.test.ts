/** Every function's alarms (sls/plugins/alarms.ts): one per metric and function, and where they go. */
import { describe, expect, it } from 'vitest';
import FunctionAlarms, { alarmActions } from '../../../../sls/plugins/alarms.ts';
import type { Resources } from '../../../../sls/serverless.ts';
import { serverlessOf } from '../../../helpers/serverless.ts';

describe('the alarms of every function', () => {
  it('adds an errors and a throttles alarm to each function, notifying the given actions', () => {
    const resources: Resources = {
      ListJobsLambdaFunction: { Type: 'AWS::Lambda::Function' },
      InvocationQueue: { Type: 'AWS::SQS::Queue' },
    };
    const topic = 'arn:aws:sns:us-east-1:123456789012:on-call';
    new FunctionAlarms(
      serverlessOf({ resources, custom: { alarmActions: [topic] } }),
    ).addFunctionAlarms();
    expect(Object.keys(resources)).toEqual([
      'ListJobsLambdaFunction',
      'InvocationQueue',
      'ConfigurationErrorsAlarm',
      'ListJobsErrorsAlarm',
      'ListJobsThrottlesAlarm',
    ]);
    expect(resources.ListJobsErrorsAlarm?.Properties).toMatchObject({
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'ListJobsLambdaFunction' } }],
      AlarmActions: [topic],
      OKActions: [topic],
    });
  });

  it('adds the alarm on a configuration only an operator can mend (the ConfigurationErrors metric, both causes)', () => {
    const resources: Resources = {};
    const topic = 'arn:aws:sns:us-east-1:123456789012:on-call';
    new FunctionAlarms(
      serverlessOf({ resources, custom: { alarmActions: [topic] } }),
    ).addFunctionAlarms();
    expect(resources.ConfigurationErrorsAlarm?.Properties).toMatchObject({
      Metrics: [
        {
          Id: 'secret',
          MetricStat: {
            Metric: {
              Namespace: 'PlatformGateway',
              MetricName: 'ConfigurationErrors',
              Dimensions: [{ Name: 'Cause', Value: 'secret' }],
            },
            Stat: 'Sum',
          },
        },
        {
          Id: 'credentials',
          MetricStat: {
            Metric: {
              Namespace: 'PlatformGateway',
              MetricName: 'ConfigurationErrors',
              Dimensions: [{ Name: 'Cause', Value: 'credentials' }],
            },
            Stat: 'Sum',
          },
        },
        { Id: 'errors', Expression: 'FILL(secret, 0) + FILL(credentials, 0)', ReturnData: true },
      ],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [topic],
    });
  });

  it.each([
    ['nowhere without a topic', '', []],
    [
      'to the topic when the stage names one',
      'arn:aws:sns:us-east-1:1:t',
      ['arn:aws:sns:us-east-1:1:t'],
    ],
  ])('sends alarms %s', async (_case, topic, expected) => {
    const resolveVariable = async (name: string) => ({ 'param:alarmTopicArn': topic })[name];
    expect(await alarmActions({ resolveVariable })).toEqual(expected);
  });
});
