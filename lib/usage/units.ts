/**
 * What one request spends of a plan: one request, and for the platform's character-billed APIs
 * the characters of the `text` it sends. The inbound side computes it from the validated input,
 * before admission.
 *
 * Characters are counted as UTF-16 code units (JavaScript's `text.length`): the unit the input
 * check of 1..5000 (translate) and 1..2000 (tts) counts in. The platform bills "the number of
 * characters requested" without saying how it counts a character outside the Basic
 * Multilingual Plane; code units count such a character (an emoji, a rare CJK ideograph) as 2,
 * never fewer than it can be billed, so a plan's budget is never overspent by the count. Text
 * inside `<span translate="no">`, which Papago leaves out of its count, is counted too.
 */
import type { CatalogueApi } from '../core/scopes.ts';
import type { Counts } from './plan.ts';

/** The APIs the platform bills by characters, as scopes and plans name them. */
type CharacterApi = 'translate' | 'tts';

/** What one request spends. */
export interface Units {
  readonly requests: number;
  readonly characters?: { readonly api: CharacterApi; readonly count: number };
}

/** One request of a route that is not billed by characters (jobs, actions, triggers, maps, ...). */
export const ONE_REQUEST: Units = { requests: 1 };

/** The characters the platform counts of a text: its UTF-16 code units (see above). */
export function charactersOf(text: string): number {
  return text.length;
}

/**
 * What a catalogue call spends, from its API and its validated body: `translate` (`nmt` and
 * `smt` alike) and `tts` spend the characters of `text`; every other API one request.
 */
export function catalogueUnits(api: CatalogueApi, body: unknown): Units {
  if (api !== 'translate' && api !== 'tts') return ONE_REQUEST;
  const text = (body as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') return ONE_REQUEST;
  return { requests: 1, characters: { api, count: charactersOf(text) } };
}

/** Units as amounts per counter. */
export function countsOf(units: Units): Counts {
  const characters = units.characters;
  return {
    requests: units.requests,
    translate: characters?.api === 'translate' ? characters.count : 0,
    tts: characters?.api === 'tts' ? characters.count : 0,
  };
}
