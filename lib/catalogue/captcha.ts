/**
 * CAPTCHA APIs (one function, `catalogueGroup` below): issue a key, fetch its image or audio, compare
 * the user's answer.
 *
 * The audio key comes from `/scaptcha/v1/nkey`; the platform's public docs show
 * `/scaptcha/v1/skey` for the same call (docs/catalogue.md says when to change it).
 */
import type * as z from 'zod/mini';
import { type CatalogueEntry, catalogueGroup, defineEntry } from './entry.ts';
import { strictInput, text, token } from './fields.ts';

const AUDIO_CAPTCHA_KEY_PATH = '/scaptcha/v1/nkey';

const captchaKeyQuerySchema = strictInput({});
const captchaImageQuerySchema = strictInput({ key: token(64) });
type CaptchaImageQuery = z.infer<typeof captchaImageQuerySchema>;
const captchaVerifyBodySchema = strictInput({ key: token(64), value: text(1, 100) });
type CaptchaVerifyBody = z.infer<typeof captchaVerifyBodySchema>;

/** A kind of CAPTCHA the platform serves (image or audio), and its upstream paths. */
interface CaptchaKind {
  readonly name: 'image' | 'audio';
  readonly keyPath: string;
  readonly binPath: string;
  readonly contentType: string;
}

const CAPTCHA_KINDS: readonly CaptchaKind[] = [
  {
    name: 'image',
    keyPath: '/captcha/v1/nkey',
    binPath: '/captcha-bin/v1/ncaptcha',
    contentType: 'image/jpeg',
  },
  {
    name: 'audio',
    keyPath: AUDIO_CAPTCHA_KEY_PATH,
    binPath: '/scaptcha-bin/v1/scaptcha',
    contentType: 'audio/wav',
  },
];

const JSON_ANSWER = { kind: 'json', contentTypes: ['application/json'] } as const;

/** The three catalogue entries of one kind: its key, its image or audio, its verification. */
function entriesOfKind(kind: CaptchaKind): CatalogueEntry[] {
  const label = kind.name === 'image' ? 'Image' : 'Audio';
  return [
    defineEntry<undefined, Record<string, never>>({
      id: `${kind.name}CaptchaKey`,
      api: 'captcha',
      method: 'GET',
      path: `/captcha/${kind.name}/key`,
      summary: `${label} CAPTCHA: issue a key`,
      upstream: { method: 'GET', paths: [kind.keyPath] },
      sends: 'query',
      answers: JSON_ANSWER,
      // Repeating only issues another key, which nobody has seen.
      idempotent: true,
      query: captchaKeyQuerySchema,
      toUpstream: () => ({ params: [['code', '0']] }),
    }),
    defineEntry<undefined, CaptchaImageQuery>({
      id: `${kind.name}Captcha`,
      api: 'captcha',
      method: 'GET',
      path: `/captcha/${kind.name}`,
      summary: `${label} CAPTCHA: the ${kind.name} of a key`,
      upstream: { method: 'GET', paths: [kind.binPath] },
      sends: 'query',
      answers: { kind: 'binary', contentTypes: [kind.contentType] },
      idempotent: true,
      query: captchaImageQuerySchema,
      toUpstream: ({ query }) => ({ params: [['key', query.key]] }),
    }),
    defineEntry<CaptchaVerifyBody>({
      id: `${kind.name}CaptchaVerify`,
      api: 'captcha',
      method: 'POST',
      path: `/captcha/${kind.name}/verify`,
      summary: `${label} CAPTCHA: compare the user's answer with the key`,
      upstream: { method: 'GET', paths: [kind.keyPath] },
      sends: 'query',
      answers: JSON_ANSWER,
      // A GET upstream, but a key can be compared once: a repeat would report "Invalid key."
      // for an answer that was right.
      idempotent: false,
      body: captchaVerifyBodySchema,
      toUpstream: ({ body }) => ({
        params: [
          ['code', '1'],
          ['key', body.key],
          ['value', body.value],
        ],
      }),
    }),
  ];
}

export const captchaEntries: CatalogueEntry[] = catalogueGroup(
  'catalogueCaptcha',
  CAPTCHA_KINDS.flatMap(entriesOfKind),
);
