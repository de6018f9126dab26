/** Search snippets of articles are cut from the Markdown as plain text (src/search/plain-text.ts). */
import { markdownToPlainText } from '../src/search/plain-text';

describe('markdownToPlainText', () => {
  it('keeps what a reader sees: one line per block, emphasis, code, links and images as their text', () => {
    const md = [
      '# Resetting your **printer**',
      '',
      'Hold the *Reset* button for 10 s. See [the manual](https://example.com/manual) & the `LED` codes.',
      '',
      '- First item with __bold__',
      '- Second: ![diagram](x.png)',
      '',
      '| Code | Meaning |',
      '|---|---|',
      '| E1 | Paper jam |',
      '',
      '> Quote here',
      '',
      '```',
      'code block',
      '```',
      '',
      '<div>Some <b>html</b></div> &lt;tag&gt; &#169; &#x263A;',
    ].join('\n');
    expect(markdownToPlainText(md).split('\n')).toEqual([
      'Resetting your printer',
      'Hold the Reset button for 10 s. See the manual & the LED codes.',
      'First item with bold',
      'Second: diagram',
      'Code Meaning',
      'E1 Paper jam',
      'Quote here',
      'code block',
      'Some html <tag> © ☺',
    ]);
  });

  it('plain text stays as it is; empty stays empty; unknown entities are kept', () => {
    expect(markdownToPlainText('Just words, in Their Case.')).toBe('Just words, in Their Case.');
    expect(markdownToPlainText('')).toBe('');
    expect(markdownToPlainText('a &bogus; b &#99999999; c')).toBe('a &bogus; b &#99999999; c');
  });
});
