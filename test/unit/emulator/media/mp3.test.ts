import { describe, expect, it } from 'vitest';
import { silentMp3 } from '../../../../emulator/media/mp3.ts';
import { mp3Frames } from './media-checks.ts';

describe('silent MP3', () => {
  it('makes whole MP3 frames covering at least the asked duration', () => {
    expect(mp3Frames(silentMp3(0))).toHaveLength(1);
    expect(mp3Frames(silentMp3(1000))).toHaveLength(28); // 1000 / 36 rounded up
  });
});
