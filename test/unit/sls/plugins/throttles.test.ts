/**
 * The public routes' own throttles (sls/plugins/throttles.ts), on a template's resources: each
 * route anyone may call gets the budget of its kind, the stage depends on those routes, and a
 * setting CloudFormation would refuse stops the package naming its parameter.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../../../lib/http/routes/index.ts';
import * as throttles from '../../../../sls/plugins/throttles.ts';

/** A template whose every resource has its properties. */
type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DependsOn?: string | string[] }
>;

const SETTINGS = { webhook: { rate: '20', burst: '40' }, public: { rate: 10, burst: 20 } };
const route = (key: string) => ({
  Type: 'AWS::ApiGatewayV2::Route',
  Properties: { RouteKey: key },
});
const template = (): Resources => ({
  HttpApiStage: {
    Type: 'AWS::ApiGatewayV2::Stage',
    Properties: { DefaultRouteSettings: { ThrottlingRateLimit: 200 } },
    DependsOn: ['HttpApiLogGroup'],
  },
  HttpApiRouteGetHealth: route('GET /health'),
  HttpApiRoutePostWebhooksNameVar: route('POST /webhooks/{name}'),
  HttpApiRouteDefault: route('$default'),
  HttpApiRouteGetJobs: route('GET /jobs'),
});

describe('the public routes’ throttles', () => {
  it('names every route anyone may call, and no route of a caller', () => {
    const keys = throttles.publicRouteKeys();
    expect(keys.webhook).toEqual(['POST /webhooks/{name}']);
    expect([...keys.public].sort()).toEqual(
      ['$default', 'GET /docs', 'GET /docs/{asset}', 'GET /health', 'GET /openapi.json'].sort(),
    );
    const callers = routes.filter((r) => r.access !== 'public' && !r.reference);
    for (const r of callers) expect(keys.public).not.toContain(`${r.method} ${r.path}`);
  });

  it('gives each its budget on the stage, which waits for those routes', () => {
    const resources = template();
    throttles.applyThrottles(resources, SETTINGS);
    const stage = resources.HttpApiStage!;
    expect(stage.Properties.RouteSettings).toEqual({
      'GET /health': {
        DetailedMetricsEnabled: false,
        ThrottlingRateLimit: 10,
        ThrottlingBurstLimit: 20,
      },
      $default: {
        DetailedMetricsEnabled: false,
        ThrottlingRateLimit: 10,
        ThrottlingBurstLimit: 20,
      },
      'POST /webhooks/{name}': {
        DetailedMetricsEnabled: false,
        ThrottlingRateLimit: 20,
        ThrottlingBurstLimit: 40,
      },
    });
    expect(stage.DependsOn).toEqual([
      'HttpApiLogGroup',
      'HttpApiRoutePostWebhooksNameVar',
      'HttpApiRouteDefault',
      'HttpApiRouteGetHealth',
    ]);
    // The callers' routes keep the stage's default.
    expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 200 });
  });

  it('refuses a rate or a burst CloudFormation would not take, naming the parameter', () => {
    const bad = (settings: Parameters<typeof throttles.applyThrottles>[1]) => () =>
      throttles.applyThrottles(template(), settings);
    expect(bad({ ...SETTINGS, webhook: { rate: 'fast', burst: 1 } })).toThrow(
      /webhookThrottleRatePerSecond parameter must be a number/,
    );
    expect(bad({ ...SETTINGS, public: { rate: 1, burst: 2.5 } })).toThrow(
      /publicThrottleBurst parameter must be a whole number/,
    );
    expect(bad({ ...SETTINGS, public: { rate: '', burst: 2 } })).toThrow(
      /publicThrottleRatePerSecond/,
    );
  });
});
