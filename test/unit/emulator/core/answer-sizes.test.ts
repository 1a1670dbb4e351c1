/**
 * Answers of a size a test asks for (emulator/core/answer-sizes.ts): through the control API, a
 * report, a WAV, a map image and an action's answer come exactly that large, each still what it
 * is (the same report's JSON, a playable WAV, a PNG whose every chunk checks and a JPEG that
 * decodes, the action's JSON), their digests listed; a reset or null sets them back.
 */
import { createHash } from 'node:crypto';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { jsonOf as actionJson, call } from '../actions/helpers.ts';
import { bytesOf, catalogueFetch, FORM, form } from '../catalogue/helpers.ts';
import { signedFetch } from '../helpers.ts';
import { readPcmWav, readPng } from '../media/media-checks.ts';

const MB = 1024 * 1024;

describe('answer sizes', () => {
  const emulator = emulatorForSuite();
  const setSizes = (sizes: Record<string, number | null | string>) =>
    fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sizes),
    });
  const served = async () =>
    (
      (await (await fetch(`${emulator.url}/__emulator/answer-sizes`)).json()) as {
        served: { kind: string; bytes: number; sha256: string }[];
      }
    ).served;
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');
  const report = () => signedFetch(emulator, 'GET', '/api/v1/jobs/2810011/report');

  it('makes a report that large, the same report in its JSON', async () => {
    const plain = JSON.parse(await (await report()).text());
    await setSizes({ report: 6 * MB + 7 });

    const sized = await bytesOf(await report());

    expect(sized.length).toBe(6 * MB + 7);
    expect(JSON.parse(sized.toString('utf8'))).toEqual(plain);
    expect(await served()).toEqual([
      { kind: 'report', bytes: sized.length, sha256: sha256(sized) },
    ]);
  });

  it('makes WAV speech that large and playable; MP3 stays as it was', async () => {
    await setSizes({ speech: 20 * MB });
    const speak = (format: string) =>
      catalogueFetch(emulator, 'POST', '/voice/v1/tts', {
        contentType: FORM,
        body: form({ speaker: 'mijin', speed: '0', text: '안녕하세요', format }),
      });

    const wav = await bytesOf(await speak('wav'));
    const mp3 = await bytesOf(await speak('mp3'));

    expect(wav.length).toBe(20 * MB);
    const pcm = readPcmWav(wav);
    expect(pcm.sampleRate).toBe(16_000);
    expect(pcm.samples.length).toBe((20 * MB - 44) / 2);
    expect(mp3.length).toBeLessThan(MB);
  });

  it('makes a map image that large, a PNG or a JPEG that still decodes', async () => {
    await setSizes({ map: 5 * MB + 3 });
    const map = (format: string) =>
      catalogueFetch(
        emulator,
        'GET',
        `/map-static/v2/raster?w=100&h=80&center=127.1,37.3&level=10&format=${format}`,
      );

    const png = await bytesOf(await map('png'));
    const jpg = await bytesOf(await map('jpg'));

    expect(png.length).toBe(5 * MB + 3);
    expect(readPng(png)).toMatchObject({ width: 100, height: 80 });
    expect(jpg.length).toBe(5 * MB + 3);
    expect(jpeg.decode(jpg)).toMatchObject({ width: 100, height: 80 });
  });

  it("makes an action's JSON answer that large, the same JSON", async () => {
    const run = () =>
      call(emulator, 'hello', { query: '?blocking=true&result=true', body: { name: 'x' } });
    const plain = await actionJson(await run());
    await setSizes({ action: 3 * MB });

    const sized = await bytesOf(await run());

    expect(sized.length).toBe(3 * MB);
    expect(JSON.parse(sized.toString('utf8'))).toEqual(plain);
  });

  it('sets a size back with null, all of them with a reset, and refuses what it cannot make', async () => {
    await setSizes({ report: 2 * MB });
    await setSizes({ report: null });
    expect((await bytesOf(await report())).length).toBeLessThan(4096);

    await setSizes({ report: 2 * MB });
    emulator.reset();
    expect((await bytesOf(await report())).length).toBeLessThan(4096);

    const refused: Record<string, number | string>[] = [
      { pdf: MB },
      { report: 10 },
      { report: '5' },
      { report: 1.5 },
    ];
    for (const bad of refused) {
      expect((await setSizes(bad)).status).toBe(400);
    }
  });
});
