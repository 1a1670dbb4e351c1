// The stage's CloudWatch dashboard (a plugin, listed in serverless.yml): one
// AWS::CloudWatch::Dashboard in the stack, named `<service>-<stage>`, its body generated when the
// package is built from the route registry (lib/http/routes/) and from what the template holds
// once every resource is in it (its functions, queues, tables and alarms), so that a route, a
// function, a queue, a table or an alarm added later has its place without a line of its own:
// - the alarms' state;
// - the API: requests, 4xx and 5xx, latency p50 and p99, and Lambda's throttles;
// - by route: requests, errors, latency p50 and p99 (API Gateway's detailed route metrics, which
//   the stage's `routeMetrics` param turns on);
// - each function's errors, duration (p99) and concurrency;
// - upstream calls by outcome and by service, retries, timeouts;
// - callers' requests, and the usage plans' refusals, characters and the account's quota;
// - each queue's depth and oldest message, parked deliveries, each table's use and throttling,
//   the watcher, and the configuration errors.
// Every metric it shows is one the stack (API Gateway, Lambda, SQS, DynamoDB) or the code (the
// EMF metrics of lib/core/metrics.ts and lib/core/configuration-metric.ts) emits, with the
// dimensions they are written with: test/unit/sls/plugins/dashboard.test.ts and the template test
// hold it to that. After `serverless deploy` and in `serverless info`, its name and URL are
// printed (docs/deploy.md, "Watching a stage").
import { routes as registryRoutes } from '../../lib/http/routes/index.ts';
import type { Route } from '../../lib/http/routes/route.ts';
import { FUNCTIONS } from '../functions.ts';
import { at, type Plugin, type Resources, type Serverless } from '../serverless.ts';
import { CONFIGURATION_CAUSES } from './alarms.ts';

/** A line of a graph: a metric `[namespace, name, dimension, value, ..., options]`, or an expression. */
type Line = readonly (string | Readonly<Record<string, unknown>>)[];
/** A widget of the dashboard's body, before the layout places it. */
interface Widget {
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
}
interface Size {
  readonly width: number;
  readonly height: number;
}

/** The namespace of the code's own metrics (lib/core/metrics.ts). */
const NAMESPACE = 'PlatformGateway';
/** The HTTP API's stage: the framework deploys the one stage `$default`. */
const API_STAGE = '$default';
/** Seconds each point of a graph sums. */
const PERIOD = 300;
/** A row is 24 units wide; three graphs side by side. */
const GRID_WIDTH = 24;
const GRAPH = { width: 8, height: 6 };
/** Alarms one alarm widget may show. */
const ALARMS_PER_WIDGET = 100;
/** A group of routes with more than this many is shown one function at a time. */
const ROUTES_PER_GROUP = 8;

/** `<Name>LambdaFunction` -> `<name>`: the name serverless.yml gives the function. */
function functionLabel(logicalId: string): string {
  const name = logicalId.replace(/LambdaFunction$/, '');
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The logical ids of a template's resources of one type, in the template's order. */
function idsOf(resources: Resources, type: string): string[] {
  return Object.keys(resources).filter((id) => resources[id]?.Type === type);
}

/** A reference Fn::Sub resolves when the stack is created: `${HttpApi}`, `${Queue.QueueName}`. */
const ref = (id: string, attribute?: string): string =>
  attribute ? `\${${id}.${attribute}}` : `\${${id}}`;

/**
 * The routes as groups of a graph's size: by the registry's tags (`jobs`, `catalogue`), a large
 * tag one function at a time.
 */
function routeGroups(routes: readonly Route[]): { title: string; routes: Route[] }[] {
  const byTag = new Map<string, Route[]>();
  for (const route of routes) byTag.set(route.tag, [...(byTag.get(route.tag) ?? []), route]);
  const groups: { title: string; routes: Route[] }[] = [];
  for (const [tag, tagged] of byTag) {
    if (tagged.length <= ROUTES_PER_GROUP) {
      groups.push({ title: tag, routes: tagged });
      continue;
    }
    const byFunction = new Map<string, Route[]>();
    for (const route of tagged) {
      byFunction.set(route.function, [...(byFunction.get(route.function) ?? []), route]);
    }
    for (const [name, served] of byFunction)
      groups.push({ title: `${tag}: ${name}`, routes: served });
  }
  return groups;
}

/** Widgets laid out left to right, a new row when one is full or a section starts. */
class Layout {
  readonly widgets: (Widget & Size & { x: number; y: number })[] = [];
  x = 0;
  y = 0;
  rowHeight = 0;

  newRow(): void {
    if (this.x === 0) return;
    this.y += this.rowHeight;
    this.x = 0;
    this.rowHeight = 0;
  }

  add(widget: Widget, { width, height }: Size): void {
    if (this.x + width > GRID_WIDTH) this.newRow();
    this.widgets.push({ ...widget, x: this.x, y: this.y, width, height });
    this.x += width;
    this.rowHeight = Math.max(this.rowHeight, height);
  }

  /** A section's heading, on a row of its own. */
  heading(markdown: string): void {
    this.newRow();
    this.add({ type: 'text', properties: { markdown } }, { width: GRID_WIDTH, height: 1 });
    this.newRow();
  }
}

/** A graph of metrics (each `[namespace, name, ...dimensions, options]`) or expressions. */
function graph(
  title: string,
  metrics: readonly Line[],
  options: Readonly<Record<string, unknown>> = {},
): Widget {
  return {
    type: 'metric',
    properties: {
      title,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
      region: '${AWS::Region}',
      view: 'timeSeries',
      stacked: false,
      period: PERIOD,
      metrics,
      ...options,
    },
  };
}

/** A metric of the template's stack: `[namespace, name, dimension, value, ..., options]`. */
const metric = (
  namespace: string,
  name: string,
  dimensions: Readonly<Record<string, string>>,
  options: Readonly<Record<string, unknown>>,
): Line => [namespace, name, ...Object.entries(dimensions).flat(), options];

/**
 * CloudWatch Metrics Insights: one query a graph, over the code's metrics with exactly the
 * dimensions they are written with (SCHEMA), summed by some of them (GROUP BY).
 */
function insights(
  fn: string,
  name: string,
  schema: readonly string[],
  groupBy: readonly string[] = [],
): Line[] {
  const by = groupBy.length > 0 ? ` GROUP BY ${groupBy.join(', ')}` : '';
  return [
    [
      {
        expression: `SELECT ${fn}(${name}) FROM SCHEMA(${NAMESPACE}, ${schema.join(', ')})${by}`,
        id: 'q1',
        label: name,
        period: PERIOD,
      },
    ],
  ];
}

/** A sum over every series of one of the code's metrics with these dimensions (SEARCH): one entry. */
function searchSum(id: string, name: string, schema: readonly string[], label: string): Line {
  return [
    {
      expression: `SUM(SEARCH('{${NAMESPACE},${schema.join(',')}} MetricName="${name}"', 'Sum', ${PERIOD}))`,
      id,
      label,
    },
  ];
}

/**
 * The dashboard of a template: `{ DashboardName, DashboardBody }`, the body an Fn::Sub of its
 * JSON with the stack's own names (`${HttpApi}`, `${ListJobsLambdaFunction}`, ...).
 * `routes` are the registry's; `name` the dashboard's.
 */
export function dashboardOf({
  resources,
  routes,
  name,
  title,
}: {
  readonly resources: Resources;
  readonly routes: readonly Route[];
  readonly name: string;
  readonly title: string;
}): { DashboardName: string; DashboardBody: { 'Fn::Sub': string } } {
  const layout = new Layout();
  const functions = idsOf(resources, 'AWS::Lambda::Function');
  const queues = idsOf(resources, 'AWS::SQS::Queue');
  const tables = idsOf(resources, 'AWS::DynamoDB::Table');
  const alarms = idsOf(resources, 'AWS::CloudWatch::Alarm');
  const api = resources.HttpApi ? { ApiId: ref('HttpApi') } : undefined;
  const routeMetrics =
    String(
      at(resources.HttpApiStage, 'Properties', 'DefaultRouteSettings', 'DetailedMetricsEnabled'),
    ) === 'true';
  const lambda = (metricName: string, id: string, options: Readonly<Record<string, unknown>>) =>
    metric(
      'AWS/Lambda',
      metricName,
      { FunctionName: ref(id) },
      { label: functionLabel(id), ...options },
    );

  layout.add(
    {
      type: 'text',
      properties: {
        markdown:
          `# ${title}\n` +
          'The alarms, then the API, its routes, the functions, the upstream calls, the callers, ' +
          'the deliveries and the watcher. Every graph sums 5 minutes a point; what each shows ' +
          'is in docs/deploy.md, "Watching a stage".',
      },
    },
    { width: GRID_WIDTH, height: 2 },
  );
  for (let i = 0; i < alarms.length; i += ALARMS_PER_WIDGET) {
    const shown = alarms.slice(i, i + ALARMS_PER_WIDGET);
    layout.add(
      {
        type: 'alarm',
        properties: {
          title:
            alarms.length > ALARMS_PER_WIDGET ? `Alarms (${i + 1}-${i + shown.length})` : 'Alarms',
          // The ARN from the alarm's name (Ref) rather than Fn::GetAtt Arn: the same on AWS, and
          // a CloudFormation that does not implement alarms (moto's, `npm run rehearse`) still
          // creates the stack.
          alarms: shown.map(
            (id) =>
              `arn:\${AWS::Partition}:cloudwatch:\${AWS::Region}:\${AWS::AccountId}:alarm:${ref(id)}`,
          ),
          sortBy: 'stateUpdatedTimestamp',
        },
      },
      { width: GRID_WIDTH, height: Math.max(3, Math.ceil(shown.length / 6) + 1) },
    );
  }

  layout.heading('## The API');
  if (api) {
    layout.add(
      graph('Requests and errors', [
        metric('AWS/ApiGateway', 'Count', api, { stat: 'Sum', label: 'requests' }),
        metric('AWS/ApiGateway', '4xx', api, { stat: 'Sum', label: '4xx' }),
        metric('AWS/ApiGateway', '5xx', api, { stat: 'Sum', label: '5xx' }),
      ]),
      GRAPH,
    );
    layout.add(
      graph('Latency (ms)', [
        metric('AWS/ApiGateway', 'Latency', api, { stat: 'p50', label: 'p50' }),
        metric('AWS/ApiGateway', 'Latency', api, { stat: 'p99', label: 'p99' }),
        metric('AWS/ApiGateway', 'IntegrationLatency', api, {
          stat: 'p99',
          label: 'integration p99',
        }),
      ]),
      GRAPH,
    );
  }
  if (functions.length > 0) {
    layout.add(
      graph(
        'Throttles (Lambda refused for lack of concurrency)',
        functions.map((id) => lambda('Throttles', id, { stat: 'Sum' })),
      ),
      GRAPH,
    );
  }

  if (api) {
    if (routeMetrics) {
      const byRoute = { ...api, Stage: API_STAGE };
      for (const group of routeGroups(routes)) {
        layout.heading(`## Routes: ${group.title}`);
        const of = (metricName: string, route: Route, options: Readonly<Record<string, unknown>>) =>
          metric(
            'AWS/ApiGateway',
            metricName,
            { ...byRoute, Method: route.method, Resource: route.path },
            options,
          );
        const key = (route: Route) => `${route.method} ${route.path}`;
        layout.add(
          graph(
            `Requests: ${group.title}`,
            group.routes.map((route) => of('Count', route, { stat: 'Sum', label: key(route) })),
          ),
          GRAPH,
        );
        layout.add(
          graph(
            `Errors: ${group.title}`,
            group.routes.flatMap((route) => [
              of('5xx', route, { stat: 'Sum', label: `${key(route)} 5xx` }),
              of('4xx', route, { stat: 'Sum', label: `${key(route)} 4xx` }),
            ]),
          ),
          GRAPH,
        );
        layout.add(
          graph(
            `Latency (ms): ${group.title}`,
            group.routes.flatMap((route) => [
              of('Latency', route, { stat: 'p50', label: `${key(route)} p50` }),
              of('Latency', route, { stat: 'p99', label: `${key(route)} p99` }),
            ]),
          ),
          GRAPH,
        );
      }
    } else {
      layout.heading(
        '## Routes\nThis stage has no metrics by route: its `routeMetrics` param is false ' +
          '(API Gateway writes them only when its detailed metrics are on).',
      );
    }
  }

  if (functions.length > 0) {
    layout.heading('## Functions');
    layout.add(
      graph(
        'Errors (a handler that threw or timed out)',
        functions.map((id) => lambda('Errors', id, { stat: 'Sum' })),
      ),
      GRAPH,
    );
    layout.add(
      graph(
        'Duration p99 (ms)',
        functions.map((id) => lambda('Duration', id, { stat: 'p99' })),
      ),
      GRAPH,
    );
    layout.add(
      graph(
        'Concurrency (most at once)',
        functions.map((id) => lambda('ConcurrentExecutions', id, { stat: 'Maximum' })),
      ),
      GRAPH,
    );
  }

  layout.heading('## Upstream calls');
  layout.add(
    graph(
      'Calls by outcome',
      insights('SUM', 'UpstreamCalls', ['Function', 'Outcome', 'Service'], ['Outcome']),
    ),
    GRAPH,
  );
  layout.add(
    graph(
      'Calls by service',
      insights('SUM', 'UpstreamCalls', ['Function', 'Outcome', 'Service'], ['Service']),
    ),
    GRAPH,
  );
  layout.add(
    graph('Retries and timeouts', [
      searchSum('retries', 'UpstreamRetries', ['Function', 'Service'], 'retries'),
      searchSum('timeouts', 'UpstreamTimeouts', ['Function', 'Service'], 'timeouts'),
      searchSum(
        'refused',
        'UpstreamRetriesRefused',
        ['Function', 'Service'],
        'retries the budget refused',
      ),
    ]),
    GRAPH,
  );
  layout.add(
    graph('Answers handed off (too large to return)', [
      searchSum('handoffs', 'HandOffs', ['Function'], 'answers handed off'),
      searchSum('handoffbytes', 'HandOffBytes', ['Function'], 'their bytes'),
    ]),
    GRAPH,
  );

  layout.heading('## Callers and usage plans');
  layout.add(
    graph(
      'Requests by caller',
      insights('SUM', 'CallerRequests', ['Caller', 'Function', 'Route'], ['Caller']),
    ),
    GRAPH,
  );
  layout.add(
    graph(
      'Refusals by plan and limit',
      insights('SUM', 'UsageRefusals', ['Function', 'Limit', 'Plan'], ['Plan', 'Limit']),
    ),
    GRAPH,
  );
  layout.add(
    graph(
      'Characters by caller and API',
      insights('SUM', 'CallerCharacters', ['Api', 'Caller', 'Function'], ['Caller', 'Api']),
    ),
    GRAPH,
  );
  layout.add(
    graph(
      "The account plan's monthly quota used (%)",
      insights('MAX', 'AccountMonthQuotaUsedPercent', ['Function']),
    ),
    GRAPH,
  );
  layout.add(
    graph(
      'Usage table failures by policy',
      insights('SUM', 'UsageStoreFailures', ['Function', 'Policy'], ['Policy']),
    ),
    GRAPH,
  );

  layout.heading('## Deliveries and state');
  if (queues.length > 0) {
    const queue = (metricName: string, id: string, options: Readonly<Record<string, unknown>>) =>
      metric('AWS/SQS', metricName, { QueueName: ref(id, 'QueueName') }, { label: id, ...options });
    layout.add(
      graph(
        'Queue depth (messages waiting)',
        queues.map((id) => queue('ApproximateNumberOfMessagesVisible', id, { stat: 'Maximum' })),
      ),
      GRAPH,
    );
    layout.add(
      graph(
        'Oldest message (s)',
        queues.map((id) => queue('ApproximateAgeOfOldestMessage', id, { stat: 'Maximum' })),
      ),
      GRAPH,
    );
  }
  layout.add(
    graph('Parked, dead-lettered and duplicate deliveries', [
      searchSum('parked', 'InvocationsParked', ['Function'], 'parked by the consumer'),
      searchSum(
        'dead',
        'InvocationsToDeadLetterQueue',
        ['Function'],
        'to the dead-letter queue after their last receive',
      ),
      searchSum('duplicates', 'WebhookDuplicates', ['Function'], 'duplicates not run again'),
    ]),
    GRAPH,
  );
  if (tables.length > 0) {
    const table = (metricName: string, id: string, options: Readonly<Record<string, unknown>>) =>
      metric('AWS/DynamoDB', metricName, { TableName: ref(id) }, options);
    layout.add(
      graph(
        'Tables: capacity used',
        tables.flatMap((id) => [
          table('ConsumedWriteCapacityUnits', id, { stat: 'Sum', label: `${id} writes` }),
          table('ConsumedReadCapacityUnits', id, { stat: 'Sum', label: `${id} reads` }),
        ]),
      ),
      GRAPH,
    );
    layout.add(
      graph(
        'Tables: throttled',
        tables.flatMap((id) => [
          table('WriteThrottleEvents', id, { stat: 'Sum', label: `${id} writes` }),
          table('ReadThrottleEvents', id, { stat: 'Sum', label: `${id} reads` }),
        ]),
      ),
      GRAPH,
    );
  }
  // The function the schedule starts (the function table, sls/functions.ts).
  const scheduled = Object.values(FUNCTIONS)
    .filter((fn) => 'schedule' in fn.trigger)
    .map((fn) => `${fn.name.charAt(0).toUpperCase()}${fn.name.slice(1)}LambdaFunction`);
  const watcher = functions.find((id) => scheduled.includes(id));
  if (watcher) {
    layout.add(
      graph('The watcher (every 5 minutes)', [
        lambda('Invocations', watcher, { stat: 'Sum', label: 'runs' }),
        lambda('Errors', watcher, { stat: 'Sum', label: 'failed runs' }),
        lambda('Duration', watcher, { stat: 'Maximum', label: 'longest run (ms)', yAxis: 'right' }),
      ]),
      GRAPH,
    );
  }
  layout.add(
    graph(
      'Configuration errors (the operator must correct the secret)',
      CONFIGURATION_CAUSES.map((cause) =>
        metric(NAMESPACE, 'ConfigurationErrors', { Cause: cause }, { stat: 'Sum', label: cause }),
      ),
    ),
    GRAPH,
  );

  return {
    DashboardName: name,
    DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets: layout.widgets }) },
  };
}

/** The dashboard's name: `<service>-<stage>`, in the characters CloudWatch allows. */
export function dashboardName(service: string, stage: string): string {
  return `${service}-${stage}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 255);
}

/** Where the console shows a dashboard, in the region's partition. */
export function dashboardUrl(region: string, name: string): string {
  const host = region.startsWith('cn-')
    ? `${region}.console.amazonaws.cn`
    : region.startsWith('us-gov-')
      ? 'console.amazonaws-us-gov.com'
      : `${region}.console.aws.amazon.com`;
  return `https://${host}/cloudwatch/home?region=${region}#dashboards/dashboard/${encodeURIComponent(name)}`;
}

export default class StageDashboard implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.addDashboard(),
      // Printed after `serverless deploy` and by `serverless info`, below the stack's outputs.
      'after:aws:info:displayStackOutputs': () => this.printDashboard(),
    };
  }

  where(): { name: string; url: string } {
    const provider = this.serverless.getProvider('aws');
    const name = dashboardName(this.serverless.service.service, provider.getStage());
    return { name, url: dashboardUrl(provider.getRegion(), name) };
  }

  addDashboard(): void {
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const { name, url } = this.where();
    template.Resources.StageDashboard = {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: dashboardOf({
        resources: template.Resources,
        routes: registryRoutes,
        name,
        title: `${this.serverless.service.service}, stage ${this.serverless.getProvider('aws').getStage()}`,
      }),
    };
    template.Outputs = {
      ...template.Outputs,
      DashboardName: { Description: "The stage's CloudWatch dashboard", Value: name },
      DashboardUrl: { Description: 'The dashboard in the AWS console', Value: url },
    };
  }

  printDashboard(): void {
    const { name, url } = this.where();
    this.serverless.addServiceOutputSection('dashboard', [name, url]);
  }
}
