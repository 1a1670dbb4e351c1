/**
 * The check of a dashboard's metrics (test/helpers/dashboard-metrics.ts): what it holds a
 * dashboard to is what the code writes, and it finds what nothing writes.
 */
import { describe, expect, it } from 'vitest';
import {
  CONFIGURATION_CAUSES,
  configurationErrorMetric,
} from '../../../../lib/core/configuration-metric.ts';
import { METRIC_DIMENSIONS, Metrics } from '../../../../lib/core/metrics.ts';
import { codeMetricDimensions, problemsOf } from '../../../helpers/dashboard-metrics.ts';

/** A reference of the body's Fn::Sub: `${HttpApi}`, `${Queue.QueueName}`. */
const sub = (reference: string) => `\${${reference}}`;
const alarmArn = (id: string) =>
  `arn:${sub('AWS::Partition')}:cloudwatch:${sub('AWS::Region')}:${sub('AWS::AccountId')}:alarm:${sub(id)}`;

/** A stack with the API, one route, one function, one table and one alarm. */
function stack() {
  return {
    HttpApi: { Type: 'AWS::ApiGatewayV2::Api' },
    HttpApiStage: {
      Type: 'AWS::ApiGatewayV2::Stage',
      Properties: { StageName: '$default', DefaultRouteSettings: { DetailedMetricsEnabled: true } },
    },
    HttpApiRouteGetJobs: {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: { RouteKey: 'GET /jobs' },
    },
    ListJobsLambdaFunction: { Type: 'AWS::Lambda::Function' },
    UsageTable: { Type: 'AWS::DynamoDB::Table' },
    ListJobsErrorsAlarm: { Type: 'AWS::CloudWatch::Alarm' },
  };
}

describe('the check of a dashboard', () => {
  it('is what the code writes: each metric with its declared dimensions and Function, as take() declares them', () => {
    for (const [name, dimensions] of Object.entries(METRIC_DIMENSIONS)) {
      const metrics = new Metrics();
      const values = Object.fromEntries(dimensions.map((dimension) => [dimension, 'x']));
      metrics.count(name as keyof typeof METRIC_DIMENSIONS, values as never);
      const [document] = metrics.take('listJobs');
      const directive = (document as { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } })
        ._aws.CloudWatchMetrics[0]!;
      expect([...directive.Dimensions[0]!].sort(), name).toEqual(codeMetricDimensions().get(name));
    }
    for (const cause of CONFIGURATION_CAUSES) {
      const document = configurationErrorMetric(cause) as {
        _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
      };
      expect(document._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([
        codeMetricDimensions().get('ConfigurationErrors'),
      ]);
    }
  });

  it('passes what the stack and the code write', () => {
    const graph = (metrics: unknown[][]) => ({
      type: 'metric',
      properties: { title: 'ok', metrics },
    });
    expect(
      problemsOf(stack(), [
        graph([['AWS/Lambda', 'Errors', 'FunctionName', sub('ListJobsLambdaFunction'), {}]]),
        graph([
          [
            'AWS/ApiGateway',
            'Latency',
            'ApiId',
            sub('HttpApi'),
            'Stage',
            '$default',
            'Method',
            'GET',
            'Resource',
            '/jobs',
            { stat: 'p99' },
          ],
        ]),
        graph([['PlatformGateway', 'ConfigurationErrors', 'Cause', 'credentials', {}]]),
        graph([
          [
            {
              expression:
                'SELECT SUM(CallerRequests) FROM SCHEMA(PlatformGateway, Caller, Function, Route) GROUP BY Caller',
            },
          ],
        ]),
        {
          type: 'alarm',
          properties: { title: 'alarms', alarms: [alarmArn('ListJobsErrorsAlarm')] },
        },
      ]),
    ).toEqual([]);
  });

  it('finds a metric nothing writes, a wrong dimension, a route or an alarm the stack does not have', () => {
    const resources = stack();
    const graph = (metrics: unknown[][]) => ({
      type: 'metric',
      properties: { title: 'bad', metrics },
    });
    const problems = problemsOf(resources, [
      graph([['AWS/Lambda', 'Errorz', 'FunctionName', sub('ListJobsLambdaFunction'), {}]]),
      graph([['AWS/Lambda', 'Errors', 'FunctionName', sub('UsageTable'), {}]]),
      graph([
        [
          'AWS/ApiGateway',
          'Count',
          'ApiId',
          sub('HttpApi'),
          'Stage',
          '$default',
          'Method',
          'GET',
          'Resource',
          '/nowhere',
          {},
        ],
      ]),
      graph([['PlatformGateway', 'CallerRequests', 'Caller', 'demo', {}]]),
      graph([['PlatformGateway', 'ConfigurationErrors', 'Cause', 'weather', {}]]),
      graph([
        [
          {
            expression:
              'SELECT SUM(UsageRefusals) FROM SCHEMA(PlatformGateway, Function, Plan) GROUP BY Limit',
          },
        ],
      ]),
      graph([]),
      { type: 'alarm', properties: { title: 'alarms', alarms: [alarmArn('NoSuchAlarm')] } },
    ]);
    expect(problems).toEqual([
      expect.stringContaining('AWS/Lambda writes no Errorz'),
      expect.stringContaining(`FunctionName ${sub('UsageTable')} names no AWS::Lambda::Function`),
      expect.stringContaining('no route GET /nowhere in the template'),
      expect.stringContaining('CallerRequests is written with Caller, Function, Route, not Caller'),
      expect.stringContaining('no configuration error has the cause weather'),
      expect.stringContaining(
        'UsageRefusals is written with Function, Limit, Plan, not Function, Plan',
      ),
      expect.stringContaining('GROUP BY Limit, not in its schema'),
      'bad: no metric',
      expect.stringContaining(`${alarmArn('NoSuchAlarm')} is no alarm of the stack`),
    ]);
  });
});
