/**
 * GET /docs: the reference in a browser. A small HTML page, its start-up script, and Swagger UI
 * (swagger-ui-dist, served by the same function from its own bundle: docs-assets.ts), which
 * renders GET /openapi.json with a place to paste a bearer token (Authorize) and try each route
 * against this very deployment. The page loads nothing from another site: it works with no
 * network locally, and its Content-Security-Policy lets it reach its own origin only.
 */

/** The files GET /docs/{asset} serves: the renderer's own, and the page's start-up script. */
export const DOCS_ASSET_NAMES = [
  'swagger-ui-bundle.js',
  'swagger-ui.css',
  'favicon-32x32.png',
  'init.js',
] as const;
export type DocsAssetName = (typeof DOCS_ASSET_NAMES)[number];

/**
 * Its own origin only: scripts and styles of this function (Swagger UI sets inline styles),
 * calls to this API, images of its own or inline. No frame may hold it.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page. Its links are relative to it (`docs/...`, `openapi.json`), so that it works under
 * any base path: `/docs` on a stage's default endpoint, `/<base>/docs` behind a custom domain.
 */
export function docsPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform gateway: API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>This page needs JavaScript. The OpenAPI document it renders is at <a href="openapi.json">openapi.json</a>.</noscript>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;
}

/**
 * The page's start-up: fetch the document, point its servers at this deployment (the document
 * lists the usual ones; the page calls the one it was loaded from), and render it. No call to
 * Swagger's online validator: nothing leaves this origin.
 */
export function docsInitScript(): string {
  return `'use strict';
(function () {
  var base = new URL('.', window.location.href);
  var here = base.href.replace(/\\/$/, '');
  function show(message) {
    var box = document.getElementById('swagger-ui');
    box.textContent = message;
    box.setAttribute('role', 'alert');
  }
  fetch(new URL('openapi.json', base).href, { headers: { accept: 'application/json' } })
    .then(function (answer) {
      if (answer.status === 401) {
        throw new Error('This stage serves its reference to known callers only: GET openapi.json needs a bearer token.');
      }
      if (!answer.ok) throw new Error('GET openapi.json answered ' + answer.status + '.');
      return answer.json();
    })
    .then(function (document) {
      document.servers = [{ url: here, description: 'This deployment (the page\\'s own origin)' }];
      window.ui = SwaggerUIBundle({
        spec: document,
        dom_id: '#swagger-ui',
        deepLinking: true,
        displayRequestDuration: true,
        persistAuthorization: false,
        validatorUrl: null,
        tryItOutEnabled: false
      });
    })
    .catch(function (error) {
      show('The reference could not load: ' + error.message);
    });
})();
`;
}
