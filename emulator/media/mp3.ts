/**
 * Silent MP3 audio made of real MPEG-1 Layer III frames, so any decoder (and a test walking the
 * frame headers) accepts it. A frame whose side information is all zeros has no Huffman data
 * and a global gain of 0: it decodes to silence without a psychoacoustic encoder.
 */

/** 32 kHz mono at 32 kbps: 144 * 32000 / 32000 = 144 bytes per frame, never padded. */
const MP3_SAMPLE_RATE = 32_000;
const MP3_FRAME_BYTES = 144;
/** Every MPEG-1 Layer III frame carries 1152 samples (36 ms at 32 kHz). */
const MP3_SAMPLES_PER_FRAME = 1152;

// 0xFFFB: 11-bit sync, MPEG-1, Layer III, no CRC. 0x18: bitrate index 1 (32 kbps), sample rate
// index 2 (32 kHz), no padding. 0xC4: mono, no mode extension, not copyrighted, original.
const FRAME_HEADER = Buffer.from([0xff, 0xfb, 0x18, 0xc4]);

function silentFrame(): Buffer {
  const frame = Buffer.alloc(MP3_FRAME_BYTES);
  FRAME_HEADER.copy(frame);
  return frame;
}

/** At least `durationMs` of silence, rounded up to whole frames (one frame at least). */
export function silentMp3(durationMs: number): Buffer {
  const frameMs = (MP3_SAMPLES_PER_FRAME / MP3_SAMPLE_RATE) * 1000;
  const frames = Math.max(1, Math.ceil(durationMs / frameMs));
  const frame = silentFrame();
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
