'use strict';
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
const { lib } = require('../lib.cjs');

const table = lib('functions');
const registry = lib('routes');
const { CONFIGURATION_CAUSES } = require('./alarms.cjs');

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
function functionLabel(logicalId) {
  const name = logicalId.replace(/LambdaFunction$/, '');
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The logical ids of a template's resources of one type, in the template's order. */
function idsOf(resources, type) {
  return Object.keys(resources).filter((id) => resources[id].Type === type);
}

/** A reference Fn::Sub resolves when the stack is created: `${HttpApi}`, `${Queue.QueueName}`. */
const ref = (id, attribute) => (attribute ? `\${${id}.${attribute}}` : `\${${id}}`);

/**
 * The routes as groups of a graph's size: by the registry's tags (`jobs`, `catalogue`), a large
 * tag one function at a time.
 */
function routeGroups(routes) {
  const byTag = new Map();
  for (const route of routes) byTag.set(route.tag, [...(byTag.get(route.tag) ?? []), route]);
  const groups = [];
  for (const [tag, tagged] of byTag) {
    if (tagged.length <= ROUTES_PER_GROUP) {
      groups.push({ title: tag, routes: tagged });
      continue;
    }
    const byFunction = new Map();
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
  constructor() {
    this.widgets = [];
    this.x = 0;
    this.y = 0;
    this.rowHeight = 0;
  }

  newRow() {
    if (this.x === 0) return;
    this.y += this.rowHeight;
    this.x = 0;
    this.rowHeight = 0;
  }

  add(widget, { width, height }) {
    if (this.x + width > GRID_WIDTH) this.newRow();
    this.widgets.push({ ...widget, x: this.x, y: this.y, width, height });
    this.x += width;
    this.rowHeight = Math.max(this.rowHeight, height);
  }

  /** A section's heading, on a row of its own. */
  heading(markdown) {
    this.newRow();
    this.add({ type: 'text', properties: { markdown } }, { width: GRID_WIDTH, height: 1 });
    this.newRow();
  }
}

/** A graph of metrics (each `[namespace, name, ...dimensions, options]`) or expressions. */
function graph(title, metrics, options = {}) {
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
const metric = (namespace, name, dimensions, options) => [
  namespace,
  name,
  ...Object.entries(dimensions).flat(),
  options,
];

/**
 * CloudWatch Metrics Insights: one query a graph, over the code's metrics with exactly the
 * dimensions they are written with (SCHEMA), summed by some of them (GROUP BY).
 */
function insights(fn, name, schema, groupBy = []) {
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
function searchSum(id, name, schema, label) {
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
function dashboardOf({ resources, routes, name, title }) {
  const layout = new Layout();
  const functions = idsOf(resources, 'AWS::Lambda::Function');
  const queues = idsOf(resources, 'AWS::SQS::Queue');
  const tables = idsOf(resources, 'AWS::DynamoDB::Table');
  const alarms = idsOf(resources, 'AWS::CloudWatch::Alarm');
  const api = resources.HttpApi ? { ApiId: ref('HttpApi') } : undefined;
  const routeMetrics =
    String(resources.HttpApiStage?.Properties?.DefaultRouteSettings?.DetailedMetricsEnabled) ===
    'true';
  const lambda = (metricName, id, options) =>
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
        const of = (metricName, route, options) =>
          metric(
            'AWS/ApiGateway',
            metricName,
            { ...byRoute, Method: route.method, Resource: route.path },
            options,
          );
        const key = (route) => `${route.method} ${route.path}`;
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
    const queue = (metricName, id, options) =>
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
    const table = (metricName, id, options) =>
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
  const scheduled = Object.values(table.FUNCTIONS)
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
function dashboardName(service, stage) {
  return `${service}-${stage}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 255);
}

/** Where the console shows a dashboard, in the region's partition. */
function dashboardUrl(region, name) {
  const host = region.startsWith('cn-')
    ? `${region}.console.amazonaws.cn`
    : region.startsWith('us-gov-')
      ? 'console.amazonaws-us-gov.com'
      : `${region}.console.aws.amazon.com`;
  return `https://${host}/cloudwatch/home?region=${region}#dashboards/dashboard/${encodeURIComponent(name)}`;
}

class StageDashboard {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.addDashboard(),
      // Printed after `serverless deploy` and by `serverless info`, below the stack's outputs.
      'after:aws:info:displayStackOutputs': () => this.printDashboard(),
    };
  }

  where() {
    const provider = this.serverless.getProvider('aws');
    const name = dashboardName(this.serverless.service.service, provider.getStage());
    return { name, url: dashboardUrl(provider.getRegion(), name) };
  }

  addDashboard() {
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const { name, url } = this.where();
    const { routes } = registry;
    template.Resources.StageDashboard = {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: dashboardOf({
        resources: template.Resources,
        routes,
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

  printDashboard() {
    const { name, url } = this.where();
    this.serverless.addServiceOutputSection('dashboard', [name, url]);
  }
}

module.exports = StageDashboard;
module.exports.dashboardOf = dashboardOf;
module.exports.dashboardName = dashboardName;
module.exports.dashboardUrl = dashboardUrl;
