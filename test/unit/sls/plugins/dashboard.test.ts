/**
 * The stage's dashboard (sls/plugins/dashboard.ts): generated from the route registry and the
 * template, so that a new route, function, queue, table or alarm has its place without an edit;
 * every metric it names emitted by the stack or by the code, with the dimensions they are written
 * with (test/helpers/dashboard-metrics.ts, which the template test runs on the packaged stacks);
 * its name and URL printed after a deploy and by `serverless info`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRIC_DIMENSIONS } from '../../../../lib/core/metrics.ts';
import { routes } from '../../../../lib/http/routes/index.ts';
import StageDashboard, * as plugin from '../../../../sls/plugins/dashboard.ts';
import type { Resources } from '../../../../sls/serverless.ts';
import { problemsOf, widgetsOf } from '../../../helpers/dashboard-metrics.ts';
import { serverlessOf } from '../../../helpers/serverless.ts';

/** A reference of the body's Fn::Sub: `${HttpApi}`, `${Queue.QueueName}`. */
const sub = (reference: string) => `\${${reference}}`;
/** An alarm's ARN as the dashboard writes it: from the alarm's name (Ref). */
const alarmArn = (id: string) =>
  `arn:${sub('AWS::Partition')}:cloudwatch:${sub('AWS::Region')}:${sub('AWS::AccountId')}:alarm:${sub(id)}`;

/** A stack as the framework compiles it: the API and its routes, functions, a queue, a table, alarms. */
function stack(options: { detailed?: boolean; functions?: string[] } = {}): Resources {
  const resources: Resources = {
    HttpApi: { Type: 'AWS::ApiGatewayV2::Api' },
    HttpApiStage: {
      Type: 'AWS::ApiGatewayV2::Stage',
      Properties: {
        StageName: '$default',
        DefaultRouteSettings: { DetailedMetricsEnabled: options.detailed ?? true },
      },
    },
    InvocationQueue: { Type: 'AWS::SQS::Queue' },
    UsageTable: { Type: 'AWS::DynamoDB::Table' },
    ListJobsErrorsAlarm: { Type: 'AWS::CloudWatch::Alarm' },
    ConfigurationErrorsAlarm: { Type: 'AWS::CloudWatch::Alarm' },
  };
  routes.forEach((route, i) => {
    resources[`HttpApiRoute${i}`] = {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: { RouteKey: `${route.method} ${route.path}` },
    };
  });
  for (const name of options.functions ?? ['ListJobs', 'WatchScanJobs']) {
    resources[`${name}LambdaFunction`] = { Type: 'AWS::Lambda::Function' };
  }
  return resources;
}

const dashboardOf = (resources: Resources) =>
  plugin.dashboardOf({ resources, routes, name: 'platform-gateway-dev', title: 'the title' });
const widgets = (resources: Resources) => widgetsOf({ Properties: dashboardOf(resources) });

describe('the stage dashboard', () => {
  it('names only metrics that the stack or the code emits, with the dimensions they are written with', () => {
    const resources = stack();
    expect(problemsOf(resources, widgets(resources))).toEqual([]);
  });

  it('shows every route of the registry: its requests, errors and latency p50 and p99', () => {
    const shown = widgets(stack());
    const routeMetrics = shown
      .flatMap((widget) => widget.properties.metrics ?? [])
      .filter((entry) => entry.includes('Resource'));
    for (const route of routes) {
      const of = (name: string) =>
        routeMetrics.filter(
          (entry) =>
            entry[1] === name &&
            entry.includes(route.method) &&
            entry[entry.indexOf('Resource') + 1] === route.path,
        );
      const key = `${route.method} ${route.path}`;
      expect(of('Count'), key).toHaveLength(1);
      expect(of('4xx'), key).toHaveLength(1);
      expect(of('5xx'), key).toHaveLength(1);
      expect(
        of('Latency').map((entry) => (entry.at(-1) as { stat: string }).stat),
        key,
      ).toEqual(['p50', 'p99']);
    }
  });

  it('gives a function, a queue, a table or an alarm added to the stack its place, with no edit', () => {
    const resources = stack({ functions: ['ListJobs', 'WatchScanJobs', 'SomethingNew'] });
    resources.ArchiveQueue = { Type: 'AWS::SQS::Queue' };
    resources.ArchiveTable = { Type: 'AWS::DynamoDB::Table' };
    resources.SomethingNewErrorsAlarm = { Type: 'AWS::CloudWatch::Alarm' };
    const shown = widgets(resources);
    const titled = (title: string) =>
      JSON.stringify(shown.find((widget) => widget.properties.title === title));
    for (const title of [
      'Errors (a handler that threw or timed out)',
      'Duration p99 (ms)',
      'Concurrency (most at once)',
      'Throttles (Lambda refused for lack of concurrency)',
    ]) {
      expect(titled(title), title).toContain(
        `"FunctionName","${sub('SomethingNewLambdaFunction')}"`,
      );
      expect(titled(title), title).toContain('"label":"somethingNew"');
    }
    expect(titled('Queue depth (messages waiting)')).toContain(sub('ArchiveQueue.QueueName'));
    expect(titled('Oldest message (s)')).toContain(sub('ArchiveQueue.QueueName'));
    expect(titled('Tables: capacity used')).toContain(sub('ArchiveTable'));
    expect(titled('Alarms')).toContain(alarmArn('SomethingNewErrorsAlarm'));
    expect(problemsOf(resources, shown)).toEqual([]);
  });

  it("shows the alarms' state, every alarm of the stack", () => {
    const alarms = shown(stack()).filter((widget) => widget.type === 'alarm');
    expect(alarms.flatMap((widget) => widget.properties.alarms)).toEqual([
      alarmArn('ListJobsErrorsAlarm'),
      alarmArn('ConfigurationErrorsAlarm'),
    ]);
  });

  it('shows the code metrics the issue of a stage is read from: upstream outcomes, callers, plans, deliveries, configuration', () => {
    const text = JSON.stringify(widgets(stack()));
    for (const name of [...Object.keys(METRIC_DIMENSIONS), 'ConfigurationErrors']) {
      expect(text, name).toContain(name);
    }
    expect(text).toContain('GROUP BY Outcome');
    expect(text).toContain('GROUP BY Caller');
    expect(text).toContain('GROUP BY Plan, Limit');
    for (const cause of ['secret', 'credentials']) expect(text).toContain(`"Cause","${cause}"`);
  });

  it('without route metrics (routeMetrics=false) names none, and says why', () => {
    const resources = stack({ detailed: false });
    const shown = widgets(resources);
    expect(JSON.stringify(shown)).not.toContain('"Resource"');
    expect(JSON.stringify(shown)).toContain('its `routeMetrics` param is false');
    expect(problemsOf(resources, shown)).toEqual([]);
  });

  it('lays the widgets out on the 24-column grid without overlap', () => {
    const placed = widgets(stack()) as unknown as {
      x: number;
      y: number;
      width: number;
      height: number;
    }[];
    const taken = new Set<string>();
    for (const { x, y, width, height } of placed) {
      expect(x + width).toBeLessThanOrEqual(24);
      for (let i = x; i < x + width; i++) {
        for (let j = y; j < y + height; j++) {
          expect(taken.has(`${i},${j}`), `${i},${j}`).toBe(false);
          taken.add(`${i},${j}`);
        }
      }
    }
  });

  it('holds its text free of any reference Fn::Sub would take but its own', () => {
    const body = dashboardOf(stack()).DashboardBody['Fn::Sub'];
    for (const [reference] of body.matchAll(/\$\{[^}]*\}/g)) {
      expect(reference).toMatch(
        /^\$\{(AWS::Region|AWS::Partition|AWS::AccountId|[A-Za-z0-9]+(\.(Arn|QueueName))?)\}$/,
      );
    }
  });
});

/** The same, under a name that reads as a verb in the test above. */
const shown = widgets;

describe('its docs', () => {
  it('state the most the metrics by route can cost from the number of routes there are', () => {
    const deploy = readFileSync(
      path.join(import.meta.dirname, '../../../../docs/deploy.md'),
      'utf8',
    );
    const most = (routes.length * 6 * 0.3).toFixed(2);
    expect(deploy.replace(/\s+/g, ' ')).toContain(
      `at most ${routes.length} × 6 × 0.30 = USD ${most} a month`,
    );
  });
});

describe('its name, its URL, and where they are printed', () => {
  it("is named after the service and the stage, in the characters CloudWatch takes, and found in the region's console", () => {
    expect(plugin.dashboardName('platform-gateway', 'prod')).toBe('platform-gateway-prod');
    expect(plugin.dashboardName('platform-gateway', 'pr.42')).toBe('platform-gateway-pr-42');
    expect(plugin.dashboardUrl('eu-west-1', 'platform-gateway-prod')).toBe(
      'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/platform-gateway-prod',
    );
    expect(plugin.dashboardUrl('cn-north-1', 'x')).toMatch(
      /^https:\/\/cn-north-1\.console\.amazonaws\.cn\//,
    );
  });

  function serverless(resources: Resources) {
    const sections = new Map<string, unknown>();
    return {
      sections,
      instance: {
        ...serverlessOf({ resources, provider: { stage: 'prod', region: 'eu-west-1' } }),
        addServiceOutputSection: (name: string, content: readonly string[]) =>
          void sections.set(name, content),
      },
    };
  }

  it('adds the dashboard and its name and URL as stack outputs when the package is built', () => {
    const resources = stack();
    const { instance } = serverless(resources);
    new StageDashboard(instance).hooks[
      'after:aws:package:finalize:mergeCustomProviderResources'
    ]!();
    expect(resources.StageDashboard).toMatchObject({
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: { DashboardName: 'platform-gateway-prod' },
    });
    expect(instance.service.provider.compiledCloudFormationTemplate.Outputs).toMatchObject({
      DashboardName: { Value: 'platform-gateway-prod' },
      DashboardUrl: {
        Value: expect.stringContaining('#dashboards/dashboard/platform-gateway-prod'),
      },
    });
  });

  it('prints its name and URL after a deploy and in serverless info (the service outputs)', () => {
    const { instance, sections } = serverless(stack());
    new StageDashboard(instance).hooks['after:aws:info:displayStackOutputs']!();
    expect(sections.get('dashboard')).toEqual([
      'platform-gateway-prod',
      'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/platform-gateway-prod',
    ]);
  });
});
