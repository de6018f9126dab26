import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import swaggerUi from 'swagger-ui-express';
import { BASE_PATH } from './pipeline/exchange';

/**
 * The HTML API reference at `/docs`: swagger-ui, its scripts and styles served from the npm package
 * (nothing from a CDN, so it works offline), reading the document at `/api/v1/openapi.json`.
 */
export function docsApp(): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  app.use(
    '/docs',
    swaggerUi.serveFiles(undefined, { swaggerOptions: { url: `${BASE_PATH}/openapi.json` } }),
    swaggerUi.setup(undefined, { customSiteTitle: 'Helpdesk API reference', swaggerOptions: { url: `${BASE_PATH}/openapi.json` } }),
  );
  return app as unknown as (req: IncomingMessage, res: ServerResponse) => void;
}
