import { describe, expect, it } from 'vitest';
import {
  decodeDirectionsError,
  directionsCodeNotZero,
  reverseGeocodeFailure,
  statusNotOk,
} from '../../../../lib/catalogue/failures.ts';
import type { UpstreamAnswer } from '../../../../lib/upstream/client.ts';

const answer = (body: unknown, status = 200, contentType = 'application/json'): UpstreamAnswer => ({
  status,
  headers: { 'content-type': contentType },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  attempts: 1,
});

/** The parts of the envelope the caller gets. */
const envelope = (error: { status: number; code: string; message: string } | undefined) =>
  error && { status: error.status, code: error.code, message: error.message };

describe('statusNotOk (geocoding, place search)', () => {
  it('turns a status other than OK into a 400 with that status as the code', () => {
    expect(
      envelope(statusNotOk(answer({ status: 'INVALID_REQUEST', errorMessage: 'query is empty' }))),
    ).toEqual({ status: 400, code: 'INVALID_REQUEST', message: 'query is empty' });
    expect(envelope(statusNotOk(answer({ status: 'SYSTEM_ERROR' })))).toEqual({
      status: 400,
      code: 'SYSTEM_ERROR',
      message: 'SYSTEM_ERROR',
    });
  });

  it('is no failure when the status is OK, the result empty, or the body unreadable', () => {
    expect(statusNotOk(answer({ status: 'OK', addresses: [] }))).toBeUndefined();
    expect(statusNotOk(answer({ addresses: [] }))).toBeUndefined();
    expect(statusNotOk(answer('not json', 200, 'text/plain'))).toBeUndefined();
    expect(statusNotOk(answer('[{"status":"INVALID"}]'))).toBeUndefined();
  });
});

describe('directionsCodeNotZero', () => {
  it('turns a code other than 0 into a 400 with that code', () => {
    expect(
      envelope(directionsCodeNotZero(answer({ code: 1, message: 'start and goal are the same' }))),
    ).toEqual({ status: 400, code: '1', message: 'start and goal are the same' });
    expect(envelope(directionsCodeNotZero(answer({ code: 3 })))).toEqual({
      status: 400,
      code: '3',
      message: '3',
    });
  });

  it('is no failure for code 0, no code, or a code that is not a number', () => {
    expect(directionsCodeNotZero(answer({ code: 0, route: {} }))).toBeUndefined();
    expect(directionsCodeNotZero(answer({ route: {} }))).toBeUndefined();
    expect(directionsCodeNotZero(answer({ code: '1' }))).toBeUndefined();
    expect(directionsCodeNotZero(answer('<x/>', 200, 'text/xml'))).toBeUndefined();
  });
});

describe('decodeDirectionsError', () => {
  it("answers the API's own code rather than the HTTP status it repeats", () => {
    const decoded = decodeDirectionsError(
      answer({ error: { errorCode: 400, code: 1, message: 'same start and goal' } }, 400),
    );
    expect(decoded).toMatchObject({ status: 400, code: '1' });
  });

  it('keeps the generic decoding when there is no code of its own', () => {
    const decoded = decodeDirectionsError(
      answer({ error: { errorCode: '300', message: 'Not Found Exception' } }, 404),
    );
    expect(decoded).toMatchObject({ status: 404, code: '300', message: 'Not Found Exception' });
    expect(decodeDirectionsError(answer('oops', 502, 'text/plain'))).toMatchObject({ status: 502 });
  });
});

describe('reverseGeocodeFailure', () => {
  it('turns a status code other than 0 and 3 into a 400, in JSON', () => {
    expect(
      envelope(
        reverseGeocodeFailure(answer({ status: { code: 100, name: 'x', message: 'bad coords' } })),
      ),
    ).toEqual({ status: 400, code: '100', message: 'bad coords' });
  });

  it('and in XML (output=xml)', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><response><status><code>900</code>' +
      '<name>unknown</name><message>unexpected error</message></status></response>';
    expect(envelope(reverseGeocodeFailure(answer(xml, 200, 'text/xml')))).toEqual({
      status: 400,
      code: '900',
      message: 'unexpected error',
    });
  });

  it('is no failure for 0 (found) and 3 (no result), in JSON and XML alike', () => {
    for (const code of [0, 3]) {
      expect(reverseGeocodeFailure(answer({ status: { code, name: 'ok' } }))).toBeUndefined();
      const xml = `<response><status><code>${code}</code></status></response>`;
      expect(reverseGeocodeFailure(answer(xml, 200, 'text/xml'))).toBeUndefined();
    }
  });

  it('invents nothing for a body it cannot read, or XML without a code', () => {
    expect(reverseGeocodeFailure(answer('plain text', 200, 'text/plain'))).toBeUndefined();
    expect(reverseGeocodeFailure(answer({ results: [] }))).toBeUndefined();
    expect(
      reverseGeocodeFailure(answer('<response><results/></response>', 200, 'text/xml')),
    ).toBeUndefined();
  });
});
