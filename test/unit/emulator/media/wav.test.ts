import { describe, expect, it } from 'vitest';
import {
  dtmfSegments,
  encodeWav,
  parseWav,
  renderSegments,
} from '../../../../emulator/media/wav.ts';
import { decodeDtmf, readPcmWav } from './media-checks.ts';

describe('WAV', () => {
  it('writes and reads WAV, DTMF included', () => {
    const wav = encodeWav(
      renderSegments(dtmfSegments('0123456789*#', { toneMs: 60, gapMs: 40 }), 8000),
      8000,
    );

    expect(decodeDtmf(readPcmWav(wav))).toBe('0123456789*#');
    expect(parseWav(wav)?.durationSeconds).toBeCloseTo(0.04 + 12 * 0.1, 3);
    expect(parseWav(Buffer.from('not a wav'))).toBeUndefined();
  });
});
