/**
 * An entry of the function table (sls/function-entry.ts): a function's name from its routes or
 * its entry, the defaults, what its routes say of it, and its handler modules by the stage.
 */
import { describe, expect, it } from 'vitest';
import { defineRoute } from '../../../lib/http/routes/route.ts';
import {
  functionOf,
  handlerModulesOf,
  localHandlerOf,
  localOrDeployed,
  param,
  shell,
} from '../../../sls/function-entry.ts';

const route = (name: string, more: { handsOff?: true; reference?: true } = {}) =>
  defineRoute({
    id: `${name}Route`,
    function: name,
    method: 'GET',
    path: `/${name}`,
    access: 'public',
    summary: name,
    tag: 'service',
    ...more,
  });

describe('functionOf', () => {
  it('names a function after its routes, with the defaults of an HTTP function', () => {
    const fn = functionOf({ trigger: { routes: [route('probe')] }, handler: 'functions/probe.ts' });
    expect(fn).toMatchObject({
      name: 'probe',
      timeout: 10,
      memory: 256,
      reads: [],
      may: [],
      handsOff: false,
      reference: false,
    });
  });

  it('hands off, or serves the reference, where one of its routes does', () => {
    const fn = functionOf({
      trigger: { routes: [route('docs', { reference: true }), route('docs', { handsOff: true })] },
      handler: 'functions/docs.ts',
    });
    expect([fn.handsOff, fn.reference]).toEqual([true, true]);
  });

  it('takes the name its entry gives a function no route calls', () => {
    const fn = functionOf({
      name: 'consumeProbes',
      trigger: { queue: 'ProbeQueue', batchSize: 5, reportsBatchItemFailures: true },
      handler: 'functions/queue/probe.ts',
      timeout: 90,
    });
    expect([fn.name, fn.timeout, fn.routes]).toEqual(['consumeProbes', 90, []]);
  });

  it('refuses a function of routes that name two functions, or of none', () => {
    expect(() =>
      functionOf({ trigger: { routes: [route('a'), route('b')] }, handler: 'functions/a.ts' }),
    ).toThrow('A function has one name, not a, b');
    expect(() =>
      functionOf({ trigger: { schedule: 'rate(1 hour)', description: 'd' }, handler: 'f.ts' }),
    ).toThrow('A function has one name, not none');
  });
});

describe('handler modules', () => {
  it('load the local one locally, and the public reference’s', () => {
    const receiver = { handler: { deployed: 'functions/r.ts', local: 'functions/r-local.ts' } };
    const reference = {
      handler: { publicReference: 'functions/o.ts', forCallers: 'functions/o-c.ts' },
    };
    expect(localHandlerOf(receiver)).toBe('functions/r-local.ts');
    expect(localHandlerOf(reference)).toBe('functions/o.ts');
    expect(localHandlerOf({ handler: 'functions/h.ts' })).toBe('functions/h.ts');
    expect(handlerModulesOf(reference)).toEqual(['functions/o.ts', 'functions/o-c.ts']);
  });
});

describe("serverless.yml's variables", () => {
  it('are written as the framework reads them', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
    expect(param('publicReference')).toBe('${param:publicReference}');
    expect(localOrDeployed('invocationQueueUrl')).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
      '${self:custom.invocationQueueUrl.${self:custom.isLocal}}',
    );
    expect(localOrDeployed('watcherStateTable', "''")).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
      "${self:custom.watcherStateTable.${self:custom.isLocal}, ''}",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's variable syntax
    expect(shell('EVENT_BUS_NAME')).toBe("${env:EVENT_BUS_NAME, ''}");
  });
});
