import { describe, expect, it } from 'vitest';
import { mediaType } from '../../../../lib/core/headers.ts';

describe('mediaType', () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/json; charset=UTF-8', 'application/json'],
    ['  Text/XML ;charset=utf-8', 'text/xml'],
    ['Application/Vnd.Api+JSON', 'application/vnd.api+json'],
    ['multipart/form-data; boundary=x;y', 'multipart/form-data'],
    ['', ''],
    [';charset=utf-8', ''],
  ])('reads %j as %j', (contentType, expected) => {
    expect(mediaType(contentType)).toBe(expected);
  });
});
