import { describe, expect, it } from 'vitest';
import { ActivationLog, MAX_LOGGED_ACTIVATIONS } from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { call, jsonOf } from './helpers.ts';

const CLOCK = 1_800_000_000_000;

describe('the activation log', () => {
  const emulator = emulatorForSuite({ now: () => CLOCK });

  it('is empty at first: nothing was sent', async () => {
    const response = await fetch(`${emulator.url}/__emulator/activations`);

    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({ activations: [] });
  });

  it('holds one entry per run, with name, params, method and time', async () => {
    await call(emulator, 'hello', { query: '?blocking=true', body: { name: 'Once' } });

    const expected = {
      kind: 'action',
      name: 'hello',
      params: { name: 'Once' },
      method: 'POST',
      at: CLOCK,
    };
    expect(emulator.actions.activations()).toEqual([
      { ...expected, activationId: expect.stringMatching(/^[0-9a-f]{32}$/) },
    ]);
    const control = await jsonOf(await fetch(`${emulator.url}/__emulator/activations`));
    expect(control['activations']).toEqual(emulator.actions.activations());
  });

  it("stamps records with the emulator's clock", async () => {
    const response = await call(emulator, 'hello', { query: '?blocking=true' });

    expect(await jsonOf(response)).toMatchObject({ start: CLOCK, end: CLOCK, duration: 0 });
  });

  it('is not recorded as a gateway request of its own and hands out copies', async () => {
    await call(emulator, 'hello', { body: { name: 'Copy' } });
    const first = emulator.actions.activations();
    (first[0]?.params as Record<string, unknown>)['name'] = 'changed';

    expect(emulator.actions.activations()[0]?.params).toEqual({ name: 'Copy' });
    expect(emulator.requests.map((request) => request.url)).toEqual(['/fx7h2k/demo/hello']);
  });

  it('is cleared by DELETE /__emulator/activations, by actions.reset() and by reset()', async () => {
    await call(emulator, 'hello');
    expect(
      (await fetch(`${emulator.url}/__emulator/activations`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect(emulator.actions.activations()).toEqual([]);

    await call(emulator, 'hello');
    emulator.actions.reset();
    expect(emulator.actions.activations()).toEqual([]);

    await call(emulator, 'hello');
    await fetch(`${emulator.url}/__emulator/reset`, { method: 'POST' });
    expect(emulator.actions.activations()).toEqual([]);
  });
});

describe('ActivationLog', () => {
  it('keeps only the newest entries', () => {
    const log = new ActivationLog();
    for (let i = 0; i <= MAX_LOGGED_ACTIVATIONS; i += 1) {
      log.add({
        activationId: String(i),
        kind: 'action',
        name: 'hello',
        params: {},
        method: 'POST',
        at: i,
      });
    }

    const kept = log.activations();
    expect(kept).toHaveLength(MAX_LOGGED_ACTIVATIONS);
    expect(kept[0]?.activationId).toBe('1');
  });
});
