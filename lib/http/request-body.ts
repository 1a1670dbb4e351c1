/**
 * A request's body, in one vocabulary: its size as sent (known without decoding), its bytes as
 * received (decoded from base64 once, when API Gateway encoded them), its text, and, for a route
 * that takes JSON, the JSON value (parsed once). Made with the request's state; every middleware
 * and the handler read the body through it, and nothing converts it twice.
 */
import { InputError } from '../core/errors.ts';

export class RequestBody {
  readonly #raw: string;
  readonly #base64: boolean;
  #bytes: Buffer | undefined;
  #json: { value: unknown } | undefined;

  constructor(raw: string | undefined | null, base64: boolean | undefined) {
    this.#raw = raw ?? '';
    this.#base64 = base64 === true;
  }

  /** Size in bytes as the caller sent it (base64 is measured arithmetically, not decoded). */
  get byteLength(): number {
    const raw = this.#raw;
    if (!this.#base64) return this.#bytes?.length ?? Buffer.byteLength(raw, 'utf8');
    const padding = raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0;
    return Math.max(Math.floor((raw.length * 3) / 4) - padding, 0);
  }

  /** True when no body was sent. */
  get empty(): boolean {
    return this.#raw.length === 0;
  }

  /** The bytes as received, decoded once. */
  bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.#raw, this.#base64 ? 'base64' : 'utf8');
    return this.#bytes;
  }

  /** The body as UTF-8 text: the event's own string when it was not base64 (no copy). */
  text(): string {
    return this.#base64 ? this.bytes().toString('utf8') : this.#raw;
  }

  /** The body as JSON, parsed once; text that is not JSON is a 400 (`100`) naming the body. */
  json(): unknown {
    if (!this.#json) {
      try {
        this.#json = { value: JSON.parse(this.text()) as unknown };
      } catch {
        throw new InputError([{ path: 'body', issue: 'expected a JSON document' }]);
      }
    }
    return this.#json.value;
  }
}
