/** The pure parts of the shared search and tag rules (docs/adr/0034). */
import { rewriteTags, searchTokensOf, searchWords, snippetOf, viewSortOf } from '../src/search';

describe('search helpers', () => {
  it('a query is its distinct lowercase words, at most 10', () => {
    expect(searchWords('  Printer  JAM printer ')).toEqual(['printer', 'jam']);
    expect(searchWords(Array.from({ length: 12 }, (_, i) => `w${i}`).join(' '))).toHaveLength(10);
    expect(searchWords('   ')).toEqual([]);
  });

  it('search words: accents dropped, lowercase, split on anything not a letter or digit, each once; too long ones left out', () => {
    expect(searchTokensOf('Re: Résumé printer-jam @ floor 3', null, 'A.B@C.example', undefined, 'résumé')).toEqual(['re', 'resume', 'printer', 'jam', 'floor', '3', 'a', 'b', 'c', 'example']);
    expect(searchTokensOf('Ünïcödé 東京 Straße')).toEqual(['unicode', '東京', 'straße']);
    expect(searchTokensOf(`ok ${'x'.repeat(65)} ${'y'.repeat(64)}`)).toEqual(['ok', 'y'.repeat(64)]);
    expect(searchTokensOf('', '  ', '!!')).toEqual([]);
    expect(searchWords('kiosk,floor-3')).toEqual(['kiosk', 'floor', '3']);
  });

  it('a snippet is the text around the first word found, on one line, marked where cut', () => {
    const text = `${'a'.repeat(100)} the Printer\nis on fire ${'b'.repeat(100)}`;
    const s = snippetOf(text, ['printer'])!;
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).toContain('the Printer is on fire');
    expect(snippetOf('short text', ['short'])).toBe('short text');
    expect(snippetOf('nothing here', ['printer'])).toBeNull();
    expect(snippetOf(null, ['printer'])).toBeNull();
  });

  it('a tag merge replaces in place and collapses duplicates; a delete removes; other tags keep their order', () => {
    expect(rewriteTags(['a', 'vip', 'b'], 'vip', 'gold')).toEqual(['a', 'gold', 'b']);
    expect(rewriteTags(['gold', 'vip', 'b'], 'vip', 'gold')).toEqual(['gold', 'b']);
    expect(rewriteTags(['a', 'vip', 'b'], 'vip', null)).toEqual(['a', 'b']);
    expect(rewriteTags(['VIP'], 'vip', null)).toEqual(['VIP']);
  });

  it('a view\'s sort maps the spec\'s names to fields, ties broken by id in the same direction', () => {
    const columns = { created_at: 'createdAt', title: 'title' };
    expect(viewSortOf({ sortField: 'title', sortDirection: 'asc' }, columns)).toEqual({ title: 1, _id: 1 });
    expect(viewSortOf({ sortField: 'created_at', sortDirection: 'desc' }, columns)).toEqual({ createdAt: -1, _id: -1 });
  });
});
