/**
 * Decoders written from the format specifications, independent of the emulator's encoders, so
 * the tests check the bytes and not the emulator against itself.
 */
import { crc32, inflateSync } from 'node:zlib';

// ---- MP3 (ISO 11172-3 frame headers) ----

const MPEG1_L3_BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG1_SAMPLE_RATES = [44_100, 48_000, 32_000];

export interface Mp3Frame {
  readonly bitrateKbps: number;
  readonly sampleRate: number;
  readonly length: number;
}

/** Walks MPEG-1 Layer III frames from the first byte to the last; throws on anything else. */
export function mp3Frames(file: Buffer): Mp3Frame[] {
  const frames: Mp3Frame[] = [];
  let offset = 0;
  while (offset < file.length) {
    const header = file.readUInt32BE(offset);
    if (header >>> 21 !== 0x7ff) throw new Error(`No frame sync at ${offset}`);
    if (((header >>> 19) & 3) !== 3) throw new Error('Not MPEG-1');
    if (((header >>> 17) & 3) !== 1) throw new Error('Not Layer III');
    const bitrateKbps = MPEG1_L3_BITRATES[(header >>> 12) & 0xf] ?? 0;
    const sampleRate = MPEG1_SAMPLE_RATES[(header >>> 10) & 3] ?? 0;
    if (bitrateKbps === 0 || sampleRate === 0) throw new Error('Bad bitrate or sample rate');
    const padding = (header >>> 9) & 1;
    const length = Math.floor((144 * bitrateKbps * 1000) / sampleRate) + padding;
    frames.push({ bitrateKbps, sampleRate, length });
    offset += length;
  }
  if (offset !== file.length) throw new Error('The last frame is cut short');
  return frames;
}

// ---- WAV ----

export interface Pcm {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly samples: Float64Array;
}

/** A canonical 44-byte-header 16-bit PCM WAV, samples scaled to -1..1. */
export function readPcmWav(file: Buffer): Pcm {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('Not RIFF/WAVE');
  }
  if (file.readUInt32LE(4) !== file.length - 8) throw new Error('Wrong RIFF size');
  if (file.toString('ascii', 12, 16) !== 'fmt ' || file.readUInt16LE(20) !== 1) {
    throw new Error('Not PCM');
  }
  if (file.toString('ascii', 36, 40) !== 'data') throw new Error('No data chunk at 36');
  const dataBytes = file.readUInt32LE(40);
  if (dataBytes !== file.length - 44) throw new Error('Wrong data size');
  const samples = new Float64Array(dataBytes / 2);
  for (let index = 0; index < samples.length; index++) {
    samples[index] = file.readInt16LE(44 + index * 2) / 32_768;
  }
  return {
    channels: file.readUInt16LE(22),
    sampleRate: file.readUInt32LE(24),
    bitsPerSample: file.readUInt16LE(34),
    samples,
  };
}

/** Signal power at one frequency (Goertzel). */
export function goertzel(samples: Float64Array, sampleRate: number, frequency: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return previous ** 2 + beforePrevious ** 2 - coefficient * previous * beforePrevious;
}

const DTMF_ROWS = [697, 770, 852, 941];
const DTMF_COLUMNS = [1209, 1336, 1477];
const DTMF_KEYS = ['123', '456', '789', '*0#'];

/** Runs of samples louder than a threshold, at least `minLength` long. */
function soundRuns(samples: Float64Array, minLength: number): Float64Array[] {
  const runs: Float64Array[] = [];
  let start = -1;
  for (let index = 0; index <= samples.length; index++) {
    const loud = index < samples.length && Math.abs(samples[index] ?? 0) > 0.01;
    if (loud && start < 0) start = index;
    if (!loud && start >= 0) {
      // A sine crosses zero: only a quiet stretch longer than a few samples ends a tone.
      const quietAhead = samples
        .subarray(index, index + 8)
        .every((value) => Math.abs(value) <= 0.01);
      if (!quietAhead && index < samples.length) continue;
      if (index - start >= minLength) runs.push(samples.subarray(start, index));
      start = -1;
    }
  }
  return runs;
}

const strongest = (powers: number[]): number => powers.indexOf(Math.max(...powers));

/** The DTMF keys in a recording: one per tone, by the strongest row and column frequency. */
export function decodeDtmf(pcm: Pcm): string {
  const runs = soundRuns(pcm.samples, pcm.sampleRate / 50);
  return runs
    .map((run) => {
      const row = strongest(DTMF_ROWS.map((f) => goertzel(run, pcm.sampleRate, f)));
      const column = strongest(DTMF_COLUMNS.map((f) => goertzel(run, pcm.sampleRate, f)));
      return DTMF_KEYS[row]?.[column] ?? '?';
    })
    .join('');
}

// ---- PNG ----

export interface PngImage {
  readonly width: number;
  readonly height: number;
  readonly colourType: number;
  readonly paletteSize: number;
  /** Unfiltered bytes per row (filter type 0 only). */
  readonly rows: Buffer[];
}

/** Checks the signature and every chunk CRC, inflates IDAT and splits the scanlines. */
export function readPng(file: Buffer): PngImage {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!file.subarray(0, 8).equals(signature)) throw new Error('No PNG signature');
  const chunks: { type: string; data: Buffer }[] = [];
  let offset = 8;
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const typeAndData = file.subarray(offset + 4, offset + 8 + length);
    if (file.readUInt32BE(offset + 8 + length) !== crc32(typeAndData)) {
      throw new Error('Bad chunk CRC');
    }
    chunks.push({ type: typeAndData.toString('ascii', 0, 4), data: typeAndData.subarray(4) });
    offset += 12 + length;
  }
  const types = chunks.map((chunk) => chunk.type);
  if (types[0] !== 'IHDR' || types.at(-1) !== 'IEND') throw new Error(`Chunk order ${types}`);
  const header = chunks[0]?.data ?? Buffer.alloc(13);
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const colourType = header.readUInt8(9);
  const channels = colourType === 2 ? 3 : 1;
  const pixels = inflateSync(
    Buffer.concat(chunks.filter((chunk) => chunk.type === 'IDAT').map((chunk) => chunk.data)),
  );
  const stride = 1 + width * channels;
  if (pixels.length !== stride * height) throw new Error('IDAT size does not match IHDR');
  const rows = Array.from({ length: height }, (_, y) => {
    if (pixels[y * stride] !== 0) throw new Error('Unexpected filter type');
    return pixels.subarray(y * stride + 1, (y + 1) * stride);
  });
  const palette = chunks.find((chunk) => chunk.type === 'PLTE');
  return { width, height, colourType, paletteSize: (palette?.data.length ?? 0) / 3, rows };
}
