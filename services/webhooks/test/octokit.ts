/**
 * `@octokit/webhooks-methods`: GitHub's receiver-side `sha256=` check. It is ESM-only with only an
 * `import` condition; jest.config.js maps its name to the file and transforms it to CommonJS.
 */
export { verify, sign } from '@octokit/webhooks-methods';
