/**
 * Issued CAPTCHA keys and their answers. A key answers one
 * comparison, right or wrong, and lapses after the platform's longest response time.
 */
import { randomBytes, randomInt } from 'node:crypto';

export type CaptchaKind = 'image' | 'audio';

const CAPTCHA_KEY_LENGTH = 16;
/** responseTime tops out at 7200 s on the platform: a key older than that is gone. */
const CAPTCHA_KEY_LIFETIME_MS = 7200 * 1000;
/** Letters and digits that cannot be mistaken for each other (no 0/O, 1/I). */
const IMAGE_ANSWER_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const IMAGE_ANSWER_LENGTH = 6;
const AUDIO_ANSWER_LENGTH = 6;

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface IssuedCaptcha {
  readonly kind: CaptchaKind;
  readonly answer: string;
  readonly issuedAt: number;
}

export type Comparison =
  | { readonly outcome: 'compared'; readonly result: boolean; readonly responseTime: number }
  | { readonly outcome: 'invalid-key' };

function randomText(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
}

function randomAnswer(kind: CaptchaKind): string {
  if (kind === 'image') {
    return Array.from({ length: IMAGE_ANSWER_LENGTH }, () =>
      IMAGE_ANSWER_ALPHABET.charAt(randomInt(IMAGE_ANSWER_ALPHABET.length)),
    ).join('');
  }
  return Array.from({ length: AUDIO_ANSWER_LENGTH }, () => String(randomInt(10))).join('');
}

export class CaptchaStore {
  readonly #issued = new Map<string, IssuedCaptcha>();

  issue(kind: CaptchaKind, now: number): string {
    this.#dropExpired(now);
    let key = randomText(KEY_ALPHABET, CAPTCHA_KEY_LENGTH);
    while (this.#issued.has(key)) key = randomText(KEY_ALPHABET, CAPTCHA_KEY_LENGTH);
    this.#issued.set(key, { kind, answer: randomAnswer(kind), issuedAt: now });
    return key;
  }

  /** The answer of a live key of this kind. */
  answerFor(kind: CaptchaKind, key: string, now: number): string | undefined {
    const issued = this.#live(key, now);
    return issued?.kind === kind ? issued.answer : undefined;
  }

  /** For tests: the answer of any live key, whatever its kind. */
  peek(key: string): string | undefined {
    return this.#issued.get(key)?.answer;
  }

  /** Compares once: the key is spent whatever the result. Letter case and spaces are ignored. */
  compare(kind: CaptchaKind, key: string, value: string, now: number): Comparison {
    const issued = this.#live(key, now);
    if (issued?.kind !== kind) return { outcome: 'invalid-key' };
    this.#issued.delete(key);
    const result = value.trim().toUpperCase() === issued.answer;
    const responseTime = Math.round((now - issued.issuedAt) / 10) / 100;
    return { outcome: 'compared', result, responseTime };
  }

  clear(): void {
    this.#issued.clear();
  }

  #live(key: string, now: number): IssuedCaptcha | undefined {
    const issued = this.#issued.get(key);
    if (!issued) return undefined;
    if (now - issued.issuedAt <= CAPTCHA_KEY_LIFETIME_MS) return issued;
    this.#issued.delete(key);
    return undefined;
  }

  // A long-running emulator must not keep every key a client ever asked for.
  #dropExpired(now: number): void {
    for (const [key, issued] of this.#issued) {
      if (now - issued.issuedAt > CAPTCHA_KEY_LIFETIME_MS) this.#issued.delete(key);
    }
  }
}
