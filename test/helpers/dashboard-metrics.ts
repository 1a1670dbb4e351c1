/**
 * Whether every metric a stage's dashboard shows (sls/plugins/dashboard.ts) is one that
 * something emits, with the dimensions it is emitted with, so that no graph stays empty: the
 * stack (API Gateway, Lambda, SQS, DynamoDB, for the resources of the template the dashboard is
 * in) or the code (its EMF metrics, lib/core/metrics.ts, as `Metrics.take` writes them, and
 * lib/core/configuration-metric.ts). `problemsOf` names each metric that is not.
 */
import { CONFIGURATION_CAUSES } from '../../lib/core/configuration-metric.ts';
import { METRIC_DIMENSIONS, METRIC_NAMESPACE } from '../../lib/core/metrics.ts';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/**
 * What AWS writes for the resources of a stack, by namespace: the metrics the dashboard may
 * read, each with the dimension names it is written with and the resource type each dimension
 * names. Sources: "Monitor CloudWatch metrics for HTTP APIs in API Gateway" (ApiId; ApiId,
 * Method, Resource, Stage with detailed metrics), "Types of metrics for Lambda functions"
 * (FunctionName), "Available CloudWatch metrics for Amazon SQS" (QueueName), "DynamoDB metrics
 * and dimensions" (TableName).
 */
const STACK_METRICS: Record<
  string,
  { names: readonly string[]; dimensions: Record<string, string>; routeDimensions?: true }
> = {
  'AWS/ApiGateway': {
    names: ['Count', '4xx', '5xx', 'Latency', 'IntegrationLatency', 'DataProcessed'],
    dimensions: { ApiId: 'AWS::ApiGatewayV2::Api' },
    routeDimensions: true,
  },
  'AWS/Lambda': {
    names: ['Invocations', 'Errors', 'Throttles', 'Duration', 'ConcurrentExecutions'],
    dimensions: { FunctionName: 'AWS::Lambda::Function' },
  },
  'AWS/SQS': {
    names: [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'NumberOfMessagesSent',
      'NumberOfMessagesDeleted',
    ],
    dimensions: { QueueName: 'AWS::SQS::Queue' },
  },
  'AWS/DynamoDB': {
    names: [
      'ConsumedReadCapacityUnits',
      'ConsumedWriteCapacityUnits',
      'ReadThrottleEvents',
      'WriteThrottleEvents',
    ],
    dimensions: { TableName: 'AWS::DynamoDB::Table' },
  },
};

/** The dimension names each of the code's metrics is written with (`take` adds Function). */
export function codeMetricDimensions(): Map<string, string[]> {
  const written = new Map<string, string[]>();
  for (const [name, dimensions] of Object.entries(METRIC_DIMENSIONS)) {
    written.set(name, ['Function', ...dimensions].sort());
  }
  written.set('ConfigurationErrors', ['Cause']);
  return written;
}

/** A `${Id}` or `${Id.Attribute}` of the body's Fn::Sub, or a plain value. */
type Value = { ref: string; attribute?: string } | { text: string };

function referenceOf(text: string): Value {
  const match = /^\$\{([A-Za-z0-9]+)(?:\.([A-Za-z]+))?\}$/.exec(text);
  if (!match) return { text };
  return match[2] ? { ref: match[1]!, attribute: match[2] } : { ref: match[1]! };
}

interface Widget {
  type: string;
  properties: {
    title?: string;
    metrics?: unknown[][];
    alarms?: string[];
    markdown?: string;
  };
}

/** The widgets of a dashboard resource's body (its Fn::Sub text, parsed). */
export function widgetsOf(dashboard: { Properties: Record<string, unknown> }): Widget[] {
  const body = dashboard.Properties.DashboardBody as { 'Fn::Sub': string } | string;
  const text = typeof body === 'string' ? body : body['Fn::Sub'];
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

/** Every problem with the metrics a dashboard shows, in the stack of `resources`; none: []. */
export function problemsOf(resources: Resources, widgets: readonly Widget[]): string[] {
  const problems: string[] = [];
  const written = codeMetricDimensions();
  const stage = resources.HttpApiStage?.Properties;
  const detailed =
    String(
      (stage?.DefaultRouteSettings as Record<string, unknown> | undefined)?.DetailedMetricsEnabled,
    ) === 'true';
  const routeKeys = new Set(
    Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route')
      .map((resource) => String(resource.Properties?.RouteKey)),
  );
  const isResource = (value: Value, type: string, attribute?: string) =>
    'ref' in value && resources[value.ref]?.Type === type && value.attribute === attribute;

  const checkStackMetric = (where: string, namespace: string, name: string, pairs: string[][]) => {
    const known = STACK_METRICS[namespace]!;
    if (!known.names.includes(name)) problems.push(`${where}: ${namespace} writes no ${name}`);
    const dimensions = Object.fromEntries(pairs);
    const names = Object.keys(dimensions).sort();
    const resourceNames = Object.keys(known.dimensions).sort();
    const byRoute = ['ApiId', 'Method', 'Resource', 'Stage'];
    if (known.routeDimensions && names.join() === byRoute.join()) {
      if (!detailed)
        problems.push(`${where}: route metrics, but the stage's detailed metrics are off`);
      if (dimensions.Stage !== stage?.StageName) {
        problems.push(
          `${where}: stage ${dimensions.Stage} is not the API's (${String(stage?.StageName)})`,
        );
      }
      const key = `${dimensions.Method} ${dimensions.Resource}`;
      if (!routeKeys.has(key)) problems.push(`${where}: no route ${key} in the template`);
    } else if (names.join() !== resourceNames.join()) {
      problems.push(
        `${where}: ${namespace} ${name} is not written with dimensions ${names.join(', ')}`,
      );
      return;
    }
    for (const [dimension, type] of Object.entries(known.dimensions)) {
      const value = referenceOf(dimensions[dimension] ?? '');
      const attribute = namespace === 'AWS/SQS' ? 'QueueName' : undefined;
      if (!isResource(value, type, attribute)) {
        problems.push(
          `${where}: ${dimension} ${dimensions[dimension]} names no ${type} of the stack`,
        );
      }
    }
  };

  const checkCodeMetric = (where: string, name: string, dimensionNames: string[], values = {}) => {
    const expected = written.get(name);
    if (!expected) {
      problems.push(`${where}: the code writes no metric ${name}`);
      return;
    }
    const names = [...dimensionNames].sort();
    if (names.join() !== expected.join()) {
      problems.push(
        `${where}: ${name} is written with ${expected.join(', ')}, not ${names.join(', ')}`,
      );
    }
    const cause = (values as Record<string, string>).Cause;
    if (cause !== undefined && !(CONFIGURATION_CAUSES as readonly string[]).includes(cause)) {
      problems.push(`${where}: no configuration error has the cause ${cause}`);
    }
  };

  const checkExpression = (where: string, expression: string) => {
    const insights =
      /^SELECT (SUM|MAX|MIN|AVG|COUNT)\((\w+)\) FROM SCHEMA\(([\w"/]+), ([\w, ]+)\)(?: GROUP BY ([\w, ]+))?$/.exec(
        expression,
      );
    if (insights) {
      const [, , name, namespace, schema, groupBy] = insights;
      const dimensions = schema!.split(',').map((each) => each.trim());
      if (namespace !== METRIC_NAMESPACE) problems.push(`${where}: namespace ${namespace}`);
      checkCodeMetric(where, name!, dimensions);
      for (const key of (groupBy ?? '')
        .split(',')
        .map((each) => each.trim())
        .filter(Boolean)) {
        if (!dimensions.includes(key))
          problems.push(`${where}: GROUP BY ${key}, not in its schema`);
      }
      return;
    }
    const search =
      /^SUM\(SEARCH\('\{([\w/]+),([\w,]+)\} MetricName="(\w+)"', '(\w+)', (\d+)\)\)$/.exec(
        expression,
      );
    if (search) {
      const [, namespace, schema, name] = search;
      if (namespace !== METRIC_NAMESPACE) problems.push(`${where}: namespace ${namespace}`);
      checkCodeMetric(where, name!, schema!.split(','));
      return;
    }
    problems.push(`${where}: an expression this check cannot read: ${expression}`);
  };

  for (const widget of widgets) {
    const title = widget.properties.title ?? '(untitled)';
    if (widget.type === 'alarm') {
      for (const alarm of widget.properties.alarms ?? []) {
        // An alarm's ARN from its name (Ref): arn:${AWS::Partition}:cloudwatch:...:alarm:${Id}.
        const name =
          /^arn:\$\{AWS::Partition\}:cloudwatch:\$\{AWS::Region\}:\$\{AWS::AccountId\}:alarm:(\$\{[A-Za-z0-9]+\})$/.exec(
            alarm,
          )?.[1];
        if (!name || !isResource(referenceOf(name), 'AWS::CloudWatch::Alarm')) {
          problems.push(`${title}: ${alarm} is no alarm of the stack`);
        }
      }
      if ((widget.properties.alarms ?? []).length === 0) problems.push(`${title}: no alarm`);
      continue;
    }
    if (widget.type !== 'metric') continue;
    const metrics = widget.properties.metrics ?? [];
    if (metrics.length === 0) problems.push(`${title}: no metric`);
    for (const entry of metrics) {
      const where = `${title} (${JSON.stringify(entry).slice(0, 120)})`;
      const [first] = entry;
      if (typeof first === 'object' && first !== null && 'expression' in first) {
        checkExpression(where, String((first as { expression: string }).expression));
        continue;
      }
      const parts = entry.filter((part) => typeof part === 'string') as string[];
      const [namespace = '', name = '', ...flat] = parts;
      const pairs: string[][] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
      if (namespace in STACK_METRICS) checkStackMetric(where, namespace, name, pairs);
      else if (namespace === METRIC_NAMESPACE) {
        checkCodeMetric(
          where,
          name,
          pairs.map(([dimension]) => dimension!),
          Object.fromEntries(pairs),
        );
      } else problems.push(`${where}: nothing of the stack or the code writes to ${namespace}`);
    }
  }
  return problems;
}
