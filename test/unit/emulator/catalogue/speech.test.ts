import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { goertzel, mp3Frames, readPcmWav } from '../media/media-checks.ts';
import { bytesOf, catalogueFetch, FORM, form, jsonOf } from './helpers.ts';

function wavFile(seconds: number, sampleRate = 16_000, silent = false): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const file = Buffer.alloc(44 + samples * 2);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + samples * 2, 4);
  file.write('WAVEfmt ', 8, 'ascii');
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20);
  file.writeUInt16LE(1, 22);
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28);
  file.writeUInt16LE(2, 32);
  file.writeUInt16LE(16, 34);
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(samples * 2, 40);
  if (!silent) {
    for (let n = 0; n < samples; n++)
      file.writeInt16LE(Math.round(8000 * Math.sin(n / 5)), 44 + n * 2);
  }
  return file;
}

describe('speech synthesis, /voice/v1/tts', () => {
  const emulator = emulatorForSuite();
  const tts = (fields: Record<string, string>) =>
    catalogueFetch(emulator, 'POST', '/voice/v1/tts', { body: form(fields), contentType: FORM });

  it('answers playable MP3: MPEG-1 Layer III frames from first byte to last', async () => {
    const response = await tts({ speaker: 'mijin', speed: '0', text: '안녕하세요' });
    const frames = mp3Frames(await bytesOf(response));

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(frames.length).toBeGreaterThanOrEqual(9); // at least 300 ms of 36 ms frames
    expect(frames.every((frame) => frame.sampleRate === 32_000 && frame.bitrateKbps === 32)).toBe(
      true,
    );
  });

  it('speaks longer text and slower speeds for longer', async () => {
    const short = mp3Frames(await bytesOf(await tts({ speaker: 'clara', speed: '0', text: 'hi' })));
    const long = mp3Frames(
      await bytesOf(
        await tts({ speaker: 'clara', speed: '0', text: 'a much longer sentence here' }),
      ),
    );
    const slow = mp3Frames(
      await bytesOf(
        await tts({ speaker: 'clara', speed: '5', text: 'a much longer sentence here' }),
      ),
    );

    expect(long.length).toBeGreaterThan(short.length);
    expect(slow.length).toBeGreaterThan(long.length);
  });

  it('answers a 16-bit mono PCM WAV with format=wav', async () => {
    const response = await tts({ speaker: 'matt', speed: '-2', text: 'hello', format: 'wav' });
    const pcm = readPcmWav(await bytesOf(response));

    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(pcm).toMatchObject({ channels: 1, bitsPerSample: 16, sampleRate: 16_000 });
    expect(goertzel(pcm.samples, pcm.sampleRate, 440)).toBeGreaterThan(
      goertzel(pcm.samples, pcm.sampleRate, 1000) * 100,
    );
  });

  it.each([
    [{ speed: '0', text: 'a' }, 'VS01', 'speaker parameter is needed.'],
    [{ speaker: 'nobody', speed: '0', text: 'a' }, 'VS02', 'Unsupported speaker.'],
    [{ speaker: 'mijin', text: 'a' }, 'VS03', 'Speed parameter is needed.'],
    [{ speaker: 'mijin', speed: '6', text: 'a' }, 'VS04', 'Unsupported speed.'],
    [{ speaker: 'mijin', speed: '1.5', text: 'a' }, 'VS04', 'Unsupported speed.'],
    [{ speaker: 'mijin', speed: '0' }, 'VS05', 'text parameter is needed.'],
    [
      { speaker: 'mijin', speed: '0', text: 'a'.repeat(2001) },
      'VS06',
      'text parameter exceeds max length.',
    ],
    [{ speaker: 'mijin', speed: '0', text: 'a', volume: '-6' }, 'VS07', 'Unsupported volume.'],
    [{ speaker: 'mijin', speed: '0', text: 'a', pitch: '9' }, 'VS08', 'Unsupported pitch.'],
    [{ speaker: 'mijin', speed: '0', text: 'a', format: 'ogg' }, 'VS09', 'Unsupported format.'],
  ])('refuses %j with %s', async (fields, errorCode, errorMessage) => {
    const response = await tts(fields);

    expect(response.status).toBe(400);
    expect(await jsonOf(response)).toEqual({ errorMessage, errorCode });
  });

  it('reads only form bodies: JSON carries no speaker', async () => {
    const response = await catalogueFetch(emulator, 'POST', '/voice/v1/tts', {
      body: JSON.stringify({ speaker: 'mijin', speed: 0, text: 'a' }),
      contentType: 'application/json',
    });

    expect(await jsonOf(response)).toMatchObject({ errorCode: 'VS01' });
  });
});

describe('speech recognition, /recog/v1/stt', () => {
  const emulator = emulatorForSuite();
  const stt = (query: string, body: Buffer, contentType = 'application/octet-stream') =>
    catalogueFetch(emulator, 'POST', `/recog/v1/stt${query}`, { body, contentType });

  it.each([
    ['Kor', '안녕하세요 반갑습니다'],
    ['Eng', 'hello nice to meet you'],
    ['Jpn', 'こんにちは はじめまして'],
    ['Chn', '你好 很高兴认识你'],
  ])('hears the fixed phrase of %s in audio with sound', async (lang, text) => {
    const response = await stt(`?lang=${lang}`, wavFile(1));

    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({ text });
  });

  it('hears nothing in digital silence', async () => {
    expect(await jsonOf(await stt('?lang=Eng', wavFile(1, 16_000, true)))).toEqual({ text: '' });
  });

  it('takes audio it cannot parse (MP3 bytes, say) as speech', async () => {
    expect(await jsonOf(await stt('?lang=Kor', Buffer.from([0xff, 0xfb, 0x18, 0xc4])))).toEqual({
      text: '안녕하세요 반갑습니다',
    });
  });

  it.each([
    [
      'a JSON Content-Type',
      '?lang=Kor',
      wavFile(1),
      'application/json',
      400,
      'STT002',
      'Invalid Content Type',
    ],
    ['no lang', '', wavFile(1), undefined, 400, 'STT004', 'Empty Language'],
    ['an unknown lang', '?lang=kor', wavFile(1), undefined, 400, 'STT005', 'Invalid Language'],
    ['an empty body', '?lang=Kor', Buffer.alloc(0), undefined, 400, 'STT003', 'Empty Sound Data'],
    [
      '61 s of WAV',
      '?lang=Kor',
      wavFile(61, 8000),
      undefined,
      413,
      'STT001',
      'Exceed Sound Data length',
    ],
    [
      '2 MB of non-WAV',
      '?lang=Kor',
      Buffer.alloc(2_000_000, 1),
      undefined,
      413,
      'STT001',
      'Exceed Sound Data length',
    ],
  ])('refuses %s', async (_, query, body, contentType, status, errorCode, errorMessage) => {
    const response = await stt(query, body, contentType);

    expect(response.status).toBe(status);
    expect(await jsonOf(response)).toEqual({ errorMessage, errorCode });
  });

  it('accepts 60 s of WAV exactly', async () => {
    expect((await stt('?lang=Eng', wavFile(60, 8000))).status).toBe(200);
  });
});
