import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../../lib/http/openapi.js';
import { openApiDocumentText } from '../../../../lib/http/openapi-document.js';

describe('openApiDocumentText', () => {
  it('is the OpenAPI document of the route registry, as JSON text', () => {
    expect(JSON.parse(openApiDocumentText())).toEqual(buildOpenApiDocument());
  });
});
