import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../../lib/http/openapi.ts';
import { openApiDocumentText } from '../../../../lib/http/openapi-document.ts';

describe('openApiDocumentText', () => {
  it('is the OpenAPI document of the route registry, as JSON text', () => {
    expect(JSON.parse(openApiDocumentText())).toEqual(buildOpenApiDocument());
  });
});
