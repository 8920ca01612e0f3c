import express from 'express';
import path from 'node:path';
import { buildOpenApiDocument } from '.';

/** Where the `swagger-ui-dist` package keeps its prebuilt files. */
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function docsPage(base: string, version: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Herald API reference ${escapeHtml(version)}</title>
    <link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
    <script src="${base}/docs/init.js"></script>
  </body>
</html>
`;
}

/** Starts Swagger UI on the document; no validator badge, so the page never leaves this server. */
function initializer(base: string): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(`${base}/openapi.json`)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'BaseLayout',
  });
});
`;
}

/** `GET /openapi.json` (the OpenAPI 3.1 document) and `GET /docs` (a readable reference served from local assets). */
export function docsRouter(options: { version: string; publicUrl: string }): express.Router {
  const document = buildOpenApiDocument({ version: options.version, serverUrl: options.publicUrl });
  const router = express.Router();

  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });

  router.get('/docs', (req, res) => {
    res.type('html').send(docsPage(escapeHtml(req.baseUrl), options.version));
  });

  router.get('/docs/init.js', (req, res) => {
    res.type('js').send(initializer(req.baseUrl));
  });

  router.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1d' }));

  return router;
}
