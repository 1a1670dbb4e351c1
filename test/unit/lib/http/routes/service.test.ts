/**
 * The service's own routes (lib/http/routes/service.ts): liveness, the reference (the document,
 * the page and its files) and a caller's usage. Who may call each, that none spends of the usage
 * plans, the input each takes, that what each documents is what it answers.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { handler as health } from '../../../../../functions/health.ts';
import { createLogger } from '../../../../../lib/core/log.ts';
import { DOCS_ASSET_NAMES, docsPageHtml } from '../../../../../lib/http/docs-page.ts';
import { docsOf } from '../../../../../lib/http/routes/docs/index.ts';
import {
  accessOf,
  type JsonSchema,
  type Route,
  routeKeyOf,
} from '../../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../../lib/http/routes/service.ts';
import { admit } from '../../../../../lib/usage/admission.ts';
import { UsageGate } from '../../../../../lib/usage/gate.ts';
import { usageReport } from '../../../../../lib/usage/report.ts';
import { memoryUsageStore } from '../../../../../lib/usage/store.ts';
import { ONE_REQUEST } from '../../../../../lib/usage/units.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../../helpers/lambda.ts';

type AjvClass = typeof import('ajv').default;

function validatorOf(schema: JsonSchema) {
  const ajv = new (Ajv2020 as unknown as AjvClass)({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  return (value: unknown) => (validate(value) ? [] : (validate.errors ?? []));
}

const documented = (route: Route) => validatorOf(docsOf(route).responses[0]?.schema ?? {});

describe("the service's own routes", () => {
  it('are served at their method and path', () => {
    expect(
      Object.values(serviceRoutes).map((route) => [route.function, routeKeyOf(route)]),
    ).toEqual([
      ['health', 'GET /health'],
      ['openapi', 'GET /openapi.json'],
      ['docs', 'GET /docs'],
      ['docs', 'GET /docs/{asset}'],
      ['usage', 'GET /usage'],
    ]);
  });

  it('spend nothing of the usage plans: none reaches the platform', () => {
    for (const route of Object.values(serviceRoutes))
      expect(route.spends, route.id).toBeUndefined();
  });

  it('need no token for liveness; any known caller for its usage', () => {
    expect(serviceRoutes.health.access).toBe('public');
    expect(serviceRoutes.usage.access).toBe('caller');
  });

  it('serve the reference to anyone, unless the stage turns its public reference off', () => {
    const reference = [serviceRoutes.openapi, serviceRoutes.docs, serviceRoutes.docsAsset];
    for (const route of reference) {
      expect(accessOf(route, true), route.id).toBe('public');
      expect(accessOf(route, false), route.id).toBe('caller');
    }
    // Liveness stays public whatever the stage says of its reference.
    expect(accessOf(serviceRoutes.health, false)).toBe('public');
  });
});

describe('GET /health', () => {
  it('answers what it documents', async () => {
    const result = await health(
      httpEvent('health.json', { headers: { authorization: undefined } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(200);
    expect(documented(serviceRoutes.health)(jsonBody(result))).toEqual([]);
    expect(documented(serviceRoutes.health)({ status: 'ok', platform: 'up' })).not.toEqual([]);
  });
});

/** The path of GET /docs/{asset}, as the route validates it. */
const docsAssetPath = serviceRoutes.docsAsset.input?.path;

describe('GET /docs/{asset}', () => {
  it('serves the files the page loads, and names them when asked for another', () => {
    const loaded = [...docsPageHtml().matchAll(/(?:href|src)="docs\/([^"]+)"/g)].map(
      ([, asset]) => asset,
    );
    expect(loaded.sort()).toEqual([...DOCS_ASSET_NAMES].sort());
    for (const asset of loaded) {
      expect(docsAssetPath?.parse({ asset })).toEqual({ asset });
    }
    for (const asset of ['secret.json', '../package.json', 'swagger-ui-bundle.js.map', '']) {
      const issues = docsAssetPath?.safeParse({ asset }).error?.issues ?? [];
      expect(
        issues.map((issue) => issue.message),
        asset,
      ).toEqual([`expected one of ${DOCS_ASSET_NAMES.join(', ')}`]);
    }
  });

  it('documents the media types of those files', () => {
    expect(docsOf(serviceRoutes.docsAsset).responses[0]?.contentTypes).toEqual([
      'application/javascript',
      'text/css',
      'image/png',
    ]);
  });
});

describe('GET /usage', () => {
  const query = serviceRoutes.usage.input?.query;

  it("takes another caller's id, and nothing else", () => {
    expect(query?.parse({})).toEqual({});
    expect(query?.parse({ caller: 'ops-team' })).toEqual({ caller: 'ops-team' });
    for (const bad of [
      { caller: '' },
      { caller: 'a b' },
      { caller: 'x'.repeat(129) },
      { who: 'a' },
    ]) {
      expect(query?.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("documents the report the usage gate gives, with the account's or null", async () => {
    const gate = new UsageGate({
      store: memoryUsageStore(),
      onStoreFailure: 'closed',
      log: createLogger({}, () => {}),
      now: () => Date.UTC(2026, 10, 25, 10, 0, 0),
    });
    const check = documented(serviceRoutes.usage);
    const plans = {
      plan: { rateRps: 5, dayQuotaRequest: 100, monthQuotaCharacters: { translate: 10_000 } },
      accountPlan: { monthQuotaRequest: 100_000 },
    };
    await admit(gate, { callerId: 'ops', plans, units: ONE_REQUEST });
    // As the handler answers it (functions/usage.ts).
    const answerOf = async (
      id: string,
      given: typeof plans | { plan: undefined; accountPlan: undefined },
    ) => {
      const report = await usageReport(gate, id, given);
      return JSON.parse(
        JSON.stringify({ caller: { id, ...report.caller }, account: report.account ?? null }),
      );
    };
    const withPlans = await answerOf('ops', plans);
    expect(withPlans.caller.day.requests).toBe(1);
    expect(check(withPlans)).toEqual([]);
    const without = await answerOf('free', { plan: undefined, accountPlan: undefined });
    expect(without).toMatchObject({ caller: { plan: null, counted: false }, account: null });
    expect(check(without)).toEqual([]);
    expect(check({ caller: withPlans.caller })).not.toEqual([]);
  });
});
