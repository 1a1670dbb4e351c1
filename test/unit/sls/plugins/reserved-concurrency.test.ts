/**
 * Reserved concurrency, or none where the stage says so (sls/plugins/reserved-concurrency.ts),
 * and what a stage reserves, as the preflight adds it up.
 */
import { describe, expect, it } from 'vitest';
import {
  applyReservedConcurrency,
  reservedByFunction,
} from '../../../../sls/plugins/reserved-concurrency.ts';

/** A template whose every resource has its properties. */
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const template = (): Resources => ({
  ReceiveWebhookLambdaFunction: {
    Type: 'AWS::Lambda::Function',
    Properties: { ReservedConcurrentExecutions: 50 },
  },
  HealthLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
});

describe('applyReservedConcurrency', () => {
  it("keeps each function's reservation by default, and removes every one with reserve false", () => {
    const kept = template();
    applyReservedConcurrency(kept, {});
    applyReservedConcurrency(kept, { reserve: true });
    expect(kept.ReceiveWebhookLambdaFunction!.Properties.ReservedConcurrentExecutions).toBe(50);
    const none = template();
    applyReservedConcurrency(none, { reserve: 'false' });
    expect(none.ReceiveWebhookLambdaFunction!.Properties).not.toHaveProperty(
      'ReservedConcurrentExecutions',
    );
  });

  it('refuses anything but true or false, naming the parameter', () => {
    expect(() => applyReservedConcurrency(template(), { reserve: 'no' })).toThrow(
      'The reserveConcurrency parameter must be true or false.',
    );
  });
});

describe('reservedByFunction', () => {
  const functions = {
    cancelReservedJobs: { reservedConcurrency: 10 },
    receiveWebhook: { reservedConcurrency: '50' },
    health: {},
    listJobs: { reservedConcurrency: null },
  };

  it('lists what each function reserves, by the same rule', () => {
    expect(reservedByFunction(functions, { reserve: true })).toEqual({
      cancelReservedJobs: 10,
      receiveWebhook: 50,
    });
    expect(reservedByFunction(functions, { reserve: false })).toEqual({});
  });
});
