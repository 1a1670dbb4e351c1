/**
 * Answers of a size a test asks for: a report, speech (WAV), a map image and an action's answer
 * as large as set, each still what it is (a report's JSON, a playable WAV, a PNG or JPEG that
 * decodes, an action's JSON), so that the hand-off of answers too large for a Lambda response
 * (docs/errors.md, "Answers of any size") runs against real answers. Set through the control API:
 *
 *   PUT /__emulator/answer-sizes {"report": 6396314, "speech": 20971520}   (null clears one)
 *   GET /__emulator/answer-sizes  -> {"sizes": {...}, "served": [{"kind","bytes","sha256"}]}
 *
 * A reset clears them. `served` lists the latest answers made to a size, with their SHA-256.
 */
import { createHash } from 'node:crypto';
import { CONTROL_PREFIX, ControlError, type ControlRoute } from './control-api.ts';
import type { GatewayResponse } from './types.ts';

const SIZED_KINDS = ['report', 'speech', 'map', 'action'] as const;
export type SizedKind = (typeof SIZED_KINDS)[number];

/** The largest answer the emulator makes: the hand-off's ceiling is 100 MB by default. */
const MAX_SIZED_BYTES = 512 * 1024 * 1024;
/** How many of the latest sized answers `served` lists. */
const SERVED_KEPT = 32;

export interface ServedAnswer {
  readonly kind: SizedKind;
  readonly bytes: number;
  /** In base64, as the hand-off's digest is. */
  readonly sha256: string;
}

export class AnswerSizes {
  readonly #sizes = new Map<SizedKind, number>();
  readonly served: ServedAnswer[] = [];

  /** The size set for a kind of answer, if any. */
  of(kind: SizedKind): number | undefined {
    return this.#sizes.get(kind);
  }

  set(kind: SizedKind, bytes: number | undefined): void {
    if (bytes === undefined) this.#sizes.delete(kind);
    else this.#sizes.set(kind, bytes);
  }

  /**
   * The answer to its set size (`make` builds one of exactly that many bytes from the answer's
   * own body, or gives undefined for an answer it does not size), or the answer as it is when
   * no size is set or it is no success.
   */
  apply(kind: SizedKind, response: GatewayResponse, make: SizeMaker): GatewayResponse {
    const bytes = this.#sizes.get(kind);
    if (bytes === undefined || response.status !== 200) return response;
    const contentType = response.headers?.['content-type'] ?? '';
    const body = make(Buffer.from(response.body ?? ''), bytes, contentType);
    if (!body) return response;
    this.served.push({
      kind,
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('base64'),
    });
    if (this.served.length > SERVED_KEPT) this.served.shift();
    return { ...response, body };
  }

  reset(): void {
    this.#sizes.clear();
    this.served.length = 0;
  }

  controlRoutes(): ControlRoute[] {
    const path = `${CONTROL_PREFIX}/answer-sizes`;
    const view = () => ({
      status: 200,
      body: { sizes: Object.fromEntries(this.#sizes), served: this.served },
    });
    return [
      { method: 'GET', path, handle: view },
      {
        method: 'PUT',
        path,
        handle: ({ body }) => {
          for (const [kind, bytes] of Object.entries(checkedSizes(body))) {
            this.set(kind as SizedKind, bytes ?? undefined);
          }
          return view();
        },
      },
    ];
  }
}

/** An answer's body made `bytes` long, or undefined for an answer it does not size. */
type SizeMaker = (body: Buffer, bytes: number, contentType: string) => Buffer | undefined;

/** A route whose successful answers are made to the size set for their kind. */
export function sizedRoute<
  C,
  R extends { handle(context: C): GatewayResponse | Promise<GatewayResponse> },
>(route: R, sizes: AnswerSizes, kind: SizedKind, make: SizeMaker): R {
  return {
    ...route,
    handle: async (context: C) => sizes.apply(kind, await route.handle(context), make),
  };
}

function checkedSizes(body: unknown): Partial<Record<SizedKind, number | null>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ControlError(400, `Send a JSON object of sizes in bytes: ${SIZED_KINDS.join(', ')}.`);
  }
  for (const [kind, bytes] of Object.entries(body)) {
    if (!(SIZED_KINDS as readonly string[]).includes(kind)) {
      throw new ControlError(
        400,
        `Unknown kind "${kind}"; expected one of ${SIZED_KINDS.join(', ')}.`,
      );
    }
    if (bytes !== null && !(Number.isInteger(bytes) && bytes >= 1024 && bytes <= MAX_SIZED_BYTES)) {
      throw new ControlError(
        400,
        `${kind}: expected null or a whole number of bytes from 1024 to ${MAX_SIZED_BYTES}.`,
      );
    }
  }
  return body as Partial<Record<SizedKind, number | null>>;
}

/**
 * JSON of exactly `bytes` bytes: the same value, with whitespace before its closing `}` or `]`
 * (JSON allows it between any two tokens). A body already as large is kept.
 */
export function sizedJson(body: Buffer, bytes: number): Buffer {
  if (body.length >= bytes) return body;
  const sized = Buffer.alloc(bytes, 0x20);
  body.copy(sized, 0, 0, body.length - 1);
  sized[bytes - 1] = body[body.length - 1] ?? 0x7d;
  return sized;
}
