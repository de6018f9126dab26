import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import swaggerUi from 'swagger-ui-express';
import { BASE_PATH } from './pipeline/exchange';
import { PUBLIC_ROOTS } from './public-roots';

/**
 * The HTML API reference at `/docs`: swagger-ui, its scripts and styles served from the npm package
 * (nothing from a CDN, so it works offline), reading the document at `/api/v1/openapi.json`.
 *
 * swagger-ui-dist is pinned to 5.32.15 (gateway/package.json, root `overrides`): from 5.33.0 to at
 * least 5.35.0 Swagger UI silently stops drawing after the first ~110 operations of this document
 * (no page error; test/docs.browser.test.ts counts every operation in Chromium). The filter box
 * helps with 180-odd operations.
 */
export function docsApp(): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  const swaggerOptions = { url: `${BASE_PATH}/openapi.json`, filter: true };
  app.use(PUBLIC_ROOTS.docs, swaggerUi.serveFiles(undefined, { swaggerOptions }), swaggerUi.setup(undefined, { customSiteTitle: 'Helpdesk API reference', swaggerOptions }));
  return app as unknown as (req: IncomingMessage, res: ServerResponse) => void;
}
