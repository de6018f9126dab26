import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as OctokitWebhookMethods from '@octokit/webhooks-methods';

/**
 * `@octokit/webhooks-methods` (GitHub's receiver-side `sha256=` check), loaded by file: the package
 * exports only an `import` condition, which jest's CommonJS resolver does not match, so it is required
 * by its path; jest transforms it to CommonJS (jest.config.js does not ignore @octokit).
 */
function load(): typeof OctokitWebhookMethods {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules/@octokit/webhooks-methods/dist-node/index.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file path, on purpose (see above)
    if (existsSync(file)) return require(file);
    if (path.dirname(dir) === dir) throw new Error('@octokit/webhooks-methods is not installed');
  }
}

export const { verify, sign } = load();
