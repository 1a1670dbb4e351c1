/** 16-bit PCM mono WAV files: writing tones (DTMF included) and reading what a client sends. */

const RIFF_HEADER_BYTES = 44;
const MAX_AMPLITUDE = 32_767;

/** Wraps 16-bit mono samples in a canonical 44-byte RIFF/WAVE header. */
export function encodeWav(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const wav = Buffer.alloc(RIFF_HEADER_BYTES + dataBytes);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
  for (const [index, sample] of samples.entries()) wav.writeInt16LE(sample, 44 + index * 2);
  return wav;
}

/** A segment of audio: the sum of sine waves (none = silence), `amplitude` 0..1 in total. */
export interface ToneSegment {
  readonly frequencies: readonly number[];
  readonly durationMs: number;
  readonly amplitude?: number;
}

export function renderSegments(segments: readonly ToneSegment[], sampleRate: number): Int16Array {
  const lengths = segments.map((segment) => Math.round((segment.durationMs / 1000) * sampleRate));
  const samples = new Int16Array(lengths.reduce((sum, length) => sum + length, 0));
  let offset = 0;
  for (const [index, segment] of segments.entries()) {
    const length = lengths[index] ?? 0;
    const perTone = ((segment.amplitude ?? 0.5) * MAX_AMPLITUDE) / segment.frequencies.length;
    for (let n = 0; n < length; n++) {
      let value = 0;
      for (const frequency of segment.frequencies) {
        value += perTone * Math.sin((2 * Math.PI * frequency * n) / sampleRate);
      }
      samples[offset + n] = Math.round(value);
    }
    offset += length;
  }
  return samples;
}

/** The low (row) and high (column) frequencies of each DTMF key, in Hz. */
const DTMF_FREQUENCIES: Readonly<Record<string, readonly [number, number]>> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
};

export interface DtmfTiming {
  readonly toneMs: number;
  readonly gapMs: number;
}

/** Silence, then one DTMF tone per key with silence after each: easy to segment and decode. */
export function dtmfSegments(keys: string, timing: DtmfTiming): ToneSegment[] {
  const segments: ToneSegment[] = [{ frequencies: [], durationMs: timing.gapMs }];
  for (const key of keys) {
    const pair = DTMF_FREQUENCIES[key];
    if (!pair) throw new Error(`No DTMF tone for "${key}"`);
    segments.push({ frequencies: pair, durationMs: timing.toneMs, amplitude: 0.6 });
    segments.push({ frequencies: [], durationMs: timing.gapMs });
  }
  return segments;
}

/** What a RIFF/WAVE file says about its audio. */
export interface WavInfo {
  readonly audioFormat: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  /** The data chunk, clipped to the bytes actually present. */
  readonly data: Buffer;
  readonly durationSeconds: number;
}

interface Chunk {
  readonly id: string;
  readonly body: Buffer;
}

function* chunksOf(file: Buffer): Generator<Chunk> {
  let offset = 12;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const start = offset + 8;
    yield { id, body: file.subarray(start, Math.min(start + size, file.length)) };
    offset = start + size + (size % 2); // chunks are word aligned
  }
}

/** Reads the header of a WAV file; undefined for anything that is not one. */
export function parseWav(file: Buffer): WavInfo | undefined {
  if (file.length < 12) return undefined;
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let format: Buffer | undefined;
  let data: Buffer | undefined;
  for (const chunk of chunksOf(file)) {
    if (chunk.id === 'fmt ') format = chunk.body;
    if (chunk.id === 'data') data = chunk.body;
  }
  if (!format || format.length < 16 || !data) return undefined;
  const byteRate = format.readUInt32LE(8);
  return {
    audioFormat: format.readUInt16LE(0),
    channels: format.readUInt16LE(2),
    sampleRate: format.readUInt32LE(4),
    bitsPerSample: format.readUInt16LE(14),
    data,
    durationSeconds: byteRate > 0 ? data.length / byteRate : 0,
  };
}

/**
 * A playable 16-bit mono WAV of exactly `bytes` bytes (rounded down to an even number): a 440 Hz
 * tone, each second the same samples (440 whole cycles), copied rather than computed again.
 */
export function sizedWav(bytes: number, sampleRate: number): Buffer {
  const samples = Math.max(0, Math.floor((bytes - RIFF_HEADER_BYTES) / 2));
  const second = encodeWav(
    renderSegments([{ frequencies: [440], durationMs: 1000, amplitude: 0.2 }], sampleRate),
    sampleRate,
  ).subarray(RIFF_HEADER_BYTES);
  const wav = Buffer.alloc(RIFF_HEADER_BYTES + samples * 2);
  encodeWav(new Int16Array(0), sampleRate).copy(wav);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.writeUInt32LE(samples * 2, 40);
  for (let offset = RIFF_HEADER_BYTES; offset < wav.length; offset += second.length) {
    second.copy(wav, offset, 0, Math.min(second.length, wav.length - offset));
  }
  return wav;
}
