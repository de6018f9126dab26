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
/**
 * Swagger UI's default colours fail WCAG AA contrast (white on its light method badges, light-blue and
 * grey links and buttons; axe-core, e2e/platform/pages-a11y.browser.test.ts): darker text where it
 * is too light.
 */
const ACCESSIBLE_CSS = [
  '.swagger-ui .opblock .opblock-summary-method{color:#000;text-shadow:none}',
  '.swagger-ui .info .title small:not(.version-stamp){background:#4b5563}',
  '.swagger-ui .info .title small.version-stamp pre{color:#000}',
  '.swagger-ui .info .url,.swagger-ui .info a,.swagger-ui .info .link{color:#0a58ca}',
  '.swagger-ui .btn.authorize{color:#1a6e45;border-color:#1a6e45}.swagger-ui .btn.authorize svg{fill:#1a6e45}',
  '.swagger-ui .json-schema-2020-12-expand-deep-button{color:#4b5563}',
].join('\n');

/**
 * What CSS cannot fix: the servers list has no accessible name, and each operation's toggle button holds
 * a link (a control inside a control; the link's target is the button's own, so it loses its href).
 * Applied as Swagger UI draws, once per frame at most.
 */
const ACCESSIBLE_JS = `(function () {
  var queued = false;
  function fix() {
    queued = false;
    var links = document.querySelectorAll('.opblock-summary-control a[href]');
    for (var i = 0; i < links.length; i++) links[i].removeAttribute('href');
    var servers = document.getElementById('servers');
    if (servers && !servers.getAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
  }
  new MutationObserver(function () {
    if (!queued) { queued = true; requestAnimationFrame(fix); }
  }).observe(document.documentElement, { childList: true, subtree: true });
  fix();
})();`;

export function docsApp(): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  const swaggerOptions = { url: `${BASE_PATH}/openapi.json`, filter: true };
  // customJsStr (an inline script) is in swagger-ui-express 5 but not in its @types.
  const setupOptions: swaggerUi.SwaggerUiOptions & { customJsStr: string } = {
    customSiteTitle: 'Helpdesk API reference',
    swaggerOptions,
    customCss: ACCESSIBLE_CSS,
    customJsStr: ACCESSIBLE_JS,
  };
  app.use(
    PUBLIC_ROOTS.docs,
    swaggerUi.serveFiles(undefined, { swaggerOptions }),
    swaggerUi.setup(undefined, setupOptions),
  );
  return app as unknown as (req: IncomingMessage, res: ServerResponse) => void;
}
