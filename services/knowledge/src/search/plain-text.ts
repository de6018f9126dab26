import { Lexer, type Token, type Tokens } from 'marked';

/** The few HTML entities Markdown authors write, and numeric ones. */
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decodeEntities = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return safeCodePoint(parseInt(lower.slice(2), 16), whole);
    if (lower.startsWith('#') && lower !== '#39') return safeCodePoint(parseInt(lower.slice(1), 10), whole);
    return NAMED[lower] ?? whole;
  });
const safeCodePoint = (n: number, fallback: string) => (Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : fallback);
const stripTags = (html: string) => html.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<[^>]*>/g, ' ');

/** The words a reader sees of a list of tokens: inline ones run together, blocks on lines of their own. */
function textOf(tokens: Token[] | undefined, out: string[]): void {
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'space':
      case 'hr':
      case 'def':
        out.push('\n');
        break;
      case 'br':
        out.push('\n');
        break;
      case 'code':
        out.push(`\n${(t as Tokens.Code).text}\n`);
        break;
      case 'codespan':
        out.push(decodeEntities((t as Tokens.Codespan).text));
        break;
      case 'image':
        out.push((t as Tokens.Image).text);
        break;
      case 'html':
        out.push(decodeEntities(stripTags((t as Tokens.HTML).text)));
        break;
      case 'list':
        for (const item of (t as Tokens.List).items) {
          textOf(item.tokens, out);
          out.push('\n');
        }
        break;
      case 'table': {
        const table = t as Tokens.Table;
        for (const row of [table.header, ...table.rows]) {
          out.push(row.map((cell) => plainInline(cell.tokens)).join(' '));
          out.push('\n');
        }
        break;
      }
      case 'heading':
      case 'paragraph':
      case 'blockquote':
        textOf((t as Tokens.Heading).tokens, out);
        out.push('\n');
        break;
      default:
        if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length) textOf(t.tokens, out);
        else if ('text' in t && typeof t.text === 'string') out.push(decodeEntities(t.text));
    }
  }
}

const plainInline = (tokens: Token[]) => {
  const out: string[] = [];
  textOf(tokens, out);
  return out.join('').replace(/\s+/g, ' ').trim();
};

/**
 * An article's Markdown as the plain text a reader sees: no `#`, `*`, `_`, backticks, link targets
 * or HTML tags; link and image texts kept; one line per block. What search snippets are cut from.
 */
export function markdownToPlainText(markdown: string): string {
  const out: string[] = [];
  textOf(new Lexer({ gfm: true }).lex(markdown), out);
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
