import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasDotOnlySegment, isDotOnlySegment } from '../../../../lib/core/schemas.ts';
import { encodePairs, upstreamUrl } from '../../../../lib/upstream/urls.ts';

describe('upstreamUrl', () => {
  const base = new URL('https://gw.example.com/prefix/');

  it('keeps the base path prefix and adds the query', () => {
    expect(upstreamUrl(base, '/api/v1/jobs', [['page', '1']]).href).toBe(
      'https://gw.example.com/prefix/api/v1/jobs?page=1',
    );
  });

  it.each([
    '/api/v1/jobs/../cancel',
    '/api/v1/jobs/./cancel',
    '/api/v1/jobs/%2e%2E/cancel',
    '/api/v1/jobs/.%2e',
    '/map-tile/v1/raster/styles/../1/0/0@1x.png',
  ])('refuses %s before anything is sent (500/900)', (path) => {
    expect(() => upstreamUrl(base, path)).toThrow(
      expect.objectContaining({ status: 500, code: '900' }),
    );
  });

  it('builds the URL the pathname and search setters build, whatever the path holds', () => {
    const bySetters = (path: string, query: [string, string][]) => {
      const url = new URL(base.origin);
      url.pathname = base.pathname.replace(/\/+$/, '') + path;
      if (query.length > 0) url.search = new URLSearchParams(query).toString();
      return url.href;
    };
    // Plain segments (joined as text) and any others (parsed) alike.
    const segment = fc
      .oneof(
        fc.stringMatching(/^[A-Za-z0-9\-._~!$&'()*+,;=:@%]{0,12}$/),
        fc.string({ unit: 'grapheme', maxLength: 12 }),
      )
      .filter((text) => !text.includes('/') && !isDotOnlySegment(text));
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 4 }),
        fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 3 }),
        (segments, query) => {
          const path = `/${segments.join('/')}`;
          expect(upstreamUrl(base, path, query).href).toBe(bySetters(path, query));
        },
      ),
      {
        numRuns: 500,
        // Found by this property once: the text parser trims a trailing space or C0 control.
        examples: [
          [[' '], []],
          [['a', 'b\u0001'], []],
          [['a\t b\n'], []],
        ],
      },
    );
    expect(upstreamUrl(base, '/a?b#c').pathname).toBe('/prefix/a%3Fb%23c');
  });

  it('leaves dots inside a segment alone', () => {
    expect(upstreamUrl(base, '/styles/bg.ol.ts/a..b').pathname).toBe(
      '/prefix/styles/bg.ol.ts/a..b',
    );
  });
});

describe('encodePairs', () => {
  it('writes what URLSearchParams writes, plain pairs (joined as text) and any others alike', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9*._-]{0,8}$/),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 4 }), (pairs) => {
        expect(encodePairs(pairs)).toBe(new URLSearchParams(pairs).toString());
      }),
      {
        numRuns: 500,
        examples: [
          [[]],
          [[['', '']]],
          [
            [
              ['page', '1'],
              ['limit', '10'],
            ],
          ],
        ],
      },
    );
  });
});

describe('isDotOnlySegment', () => {
  it.each([
    ['.', true],
    ['..', true],
    ['...', true],
    ['%2E', true],
    ['.%2e', true],
    ['', false],
    ['a.', false],
    ['.a', false],
    ['%2f', false],
  ])('%j is %s', (segment, expected) => {
    expect(isDotOnlySegment(segment)).toBe(expected);
  });
});

describe('hasDotOnlySegment', () => {
  it('agrees with isDotOnlySegment on every segment, whatever the path holds', () => {
    const part = fc.oneof(
      fc.constantFrom('.', '..', '%2e', '.%2E', 'a', 'a.', '', '%2f'),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), (segments) => {
        const path = segments.join('/');
        expect(hasDotOnlySegment(path)).toBe(path.split('/').some(isDotOnlySegment));
      }),
      { numRuns: 1000 },
    );
  });
});
