/**
 * GET /usage: the caller's usage plan and what it has used today and this month, and the
 * account's; `?caller=<id>` reads another caller's, with the scope usage:read. It reads the
 * usage table and never counts (it reaches nothing of the platform).
 */
import { CallerScopeError, NotFoundError, UsageStoreUnavailableError } from '../lib/core/errors.ts';
import { grants, USAGE_READ_SCOPE } from '../lib/core/scopes.ts';
import { bind } from '../lib/http/bind.ts';
import { callerParts, queryOf } from '../lib/http/parts.ts';
import { json } from '../lib/http/responses.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { getRuntime, type Runtime } from '../lib/runtime.ts';
import { NO_PLANS, type Plans, plansOf } from '../lib/usage/plan.ts';
import { type UsageReport, usageReport } from '../lib/usage/report.ts';
import { usageGateOf } from '../lib/usage/setup.ts';

/** Another caller's plans, from the callers' secret; 404 when no caller has that id. */
async function plansOfOther(runtime: Runtime, id: string): Promise<Plans> {
  // With a JWT issuer no callers' secret is read: its callers have no plans.
  if (runtime.config.jwtIssuer) return NO_PLANS;
  const secret = await runtime.secretsFor('callers').get();
  if (!(secret.callers ?? []).some((caller) => caller.id === id)) {
    throw new NotFoundError('No caller has that id.');
  }
  return plansOf(secret, id);
}

export const handler = bind(
  serviceRoutes.usage,
  async (request, runtime) => {
    const caller = request.caller;
    const id = request.query.caller ?? caller.id;
    let plans = caller.plans ?? NO_PLANS;
    if (id !== caller.id) {
      if (!grants(caller.scopes, USAGE_READ_SCOPE)) throw new CallerScopeError(USAGE_READ_SCOPE);
      plans = await plansOfOther(runtime, id);
    }
    let report: UsageReport;
    try {
      report = await usageReport(usageGateOf(runtime), id, plans);
    } catch (error) {
      throw new UsageStoreUnavailableError(error);
    }
    return json(200, { caller: { id, ...report.caller }, account: report.account ?? null });
  },
  { ...callerParts(getRuntime()), queryOf },
);
