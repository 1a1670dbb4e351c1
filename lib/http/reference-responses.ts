/** GET /openapi.json's answer: the document, as built at package time (openapi-document.ts). */
import { openApiDocumentText } from './openapi-document.js';
import type { HttpResponse } from './responses.js';

export function openApiDocument(): HttpResponse {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: openApiDocumentText(),
  };
}
