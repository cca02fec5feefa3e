import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router } from 'express';
import type { Config } from '../config.js';
import type { Part, PartContext } from '../part.js';
import { pageSecurityHeaders } from '../security-headers.js';
import { servedOpenApi } from './served-openapi.js';

/** The Swagger UI assets from npm (swagger-ui-dist), served from this server: the viewer works offline. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Open Oracles gateway API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/** No inline script: a page with a strict Content-Security-Policy still works. */
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * `GET /openapi.json`: the OpenAPI document of this deployment (see {@link servedOpenApi}); `GET /docs`: Swagger
 * UI over it, with its assets served from node_modules (no CDN).
 */
export function createDocsRouter(
  ctx: Pick<PartContext<Config>, 'config'>,
  parts: Pick<Part, 'health' | 'unservedPaths'>[],
): Router {
  const router = Router();
  const unservedPaths = new Set(parts.flatMap((p) => [...(p.unservedPaths ?? [])]));
  router.get('/openapi.json', (req, res, next) => {
    Promise.all(parts.map((p) => p.health?.() ?? Promise.resolve({ plugins: [] })))
      .then((extras) => {
        const disabledPlugins = new Set(
          extras
            .flatMap((e) => e.plugins ?? [])
            .filter((p) => p.state === 'disabled')
            .map((p) => p.name),
        );
        const origin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
        res.json(servedOpenApi({ config: ctx.config, origin, disabledPlugins, unservedPaths }));
      })
      .catch(next);
  });
  // The page, its script and its assets: the pages' content security policy (only this server's files).
  router.use('/docs', pageSecurityHeaders);
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT);
  });
  router.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, fallthrough: false }));
  return router;
}
