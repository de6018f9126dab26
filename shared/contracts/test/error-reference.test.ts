/** The error reference: an entry for every code the API can answer, the generated docs/errors.md, the HTML page, doc_url. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  DOC_URL_BASE,
  ERROR_CODES,
  ERROR_DOCS_PATH,
  ERROR_REFERENCE,
  errorDocUrl,
  errorReferenceRows,
  errorStatusesOf,
  INTERNAL_OPERATIONS,
  PUBLIC_OPERATIONS,
  renderErrorReferenceHtml,
  renderErrorReferenceMarkdown,
  type ErrorCode,
} from '../src';

/** Every code any operation of the manifest can answer: its own, and those every operation of its kind can. */
function codesTheManifestCanAnswer(): Set<string> {
  const codes = new Set<string>();
  for (const op of [...Object.values(PUBLIC_OPERATIONS), ...Object.values(INTERNAL_OPERATIONS)]) {
    for (const list of errorStatusesOf(op).values()) for (const c of list) codes.add(c);
    for (const c of op.errors) codes.add(c);
  }
  // The gateway's own answers for a request that matches no operation.
  codes.add('route_not_found');
  codes.add('method_not_allowed');
  return codes;
}

describe('error reference', () => {
  it('has an entry with every field for every code an operation can answer, with the status and type of the catalog', () => {
    const codes = codesTheManifestCanAnswer();
    expect(codes.size).toBeGreaterThan(30);
    const rows = new Map(errorReferenceRows().map((r) => [r.code as string, r]));
    for (const code of codes) {
      const row = rows.get(code.toLowerCase());
      expect({ code, row: row ? 'present' : 'missing' }).toEqual({ code, row: 'present' });
      expect(row!.status).toBe(ERROR_CODES[code.toLowerCase() as ErrorCode].status);
      expect(row!.type).toBe(ERROR_CODES[code.toLowerCase() as ErrorCode].type);
      expect(row!.meaning.trim().length).toBeGreaterThan(20);
      expect(row!.action.trim().length).toBeGreaterThan(10);
      expect(typeof row!.retryable).toBe('boolean');
    }
  });

  it('has exactly the catalog: no entry for a code that does not exist', () => {
    expect(Object.keys(ERROR_REFERENCE).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('marks as retryable exactly the codes a client may send again unchanged (429 and 5xx, and a key still in use)', () => {
    for (const r of errorReferenceRows()) {
      expect({ code: r.code, retryable: r.retryable }).toEqual({ code: r.code, retryable: r.status === 429 || (r.status >= 500 && r.code !== 'internal_token_invalid') || r.code === 'idempotency_key_in_use' });
    }
  });

  it('docs/errors.md is what `npm run openapi` generates', () => {
    const file = readFileSync(path.resolve(__dirname, '../../../docs/errors.md'), 'utf8');
    expect(file).toBe(renderErrorReferenceMarkdown());
    for (const code of Object.keys(ERROR_CODES)) expect(file).toContain(`\n## ${code}\n`);
  });

  it('the HTML page has one anchor per code (the #code of every doc_url), a language, a viewport and no script', () => {
    const html = renderErrorReferenceHtml();
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toMatch(/<script/i);
    for (const code of Object.keys(ERROR_CODES)) {
      expect(html.match(new RegExp(`<section id="${code}"`, 'g'))).toHaveLength(1);
      expect(html).toContain(`<a href="#${code}">`);
    }
    // Inline code spans, and no raw markup from the entries.
    expect(html).toContain('<code>Authorization: Bearer &lt;key&gt;</code>');
    expect(renderErrorReferenceHtml({ stylesheet: 'body{color:red}', title: 'Errors · Acme' })).toMatch(/<title>Errors · Acme<\/title>\n<style>\nbody\{color:red\}\n<\/style>[\s\S]*<h1>Errors<\/h1>/);
  });

  it('doc_url defaults to the platform\'s own page and takes a configurable base', () => {
    expect(DOC_URL_BASE + 'parameter_missing').toBe(errorDocUrl('parameter_missing'));
    expect(errorDocUrl('PARAMETER_INVALID')).toBe(`${ERROR_DOCS_PATH}#parameter_invalid`);
    expect(errorDocUrl('rate_limit_exceeded', 'https://developer.example.com/errors')).toBe('https://developer.example.com/errors#rate_limit_exceeded');
    expect(errorDocUrl('rate_limit_exceeded', 'https://developer.example.com/errors#')).toBe('https://developer.example.com/errors#rate_limit_exceeded');
  });
});
