import type { AiProvider, AiRequest, AiResultBody, ArticleCandidate, ThreadMessage } from './provider';

/** Words that say nothing about a ticket's subject (ranking and summaries ignore them). */
const STOPWORDS = new Set(
  ('the and for are but not you your with this that have has had was were will would can could should our out all any its ' +
    'from they them then than there their what when where which who why how into about just also been being does did doing ' +
    'please thanks thank hello dear regards hi hey get got may might must very some more most other such only own same too')
    .split(' '),
);

/** The meaningful words of a text: lowercase, letters and digits, 3+ characters, no stopwords. */
export function keywords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w));
}

/** A tag's words as they would appear in text (`billing-issue` → `billing issue`). */
const tagPattern = (tag: string) => {
  const words = tag.toLowerCase().split(/[\s_-]+/).filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(^|[^\\p{L}\\p{N}])${words.join('[\\s_-]+')}s?($|[^\\p{L}\\p{N}])`, 'iu');
};

const sentences = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const threadText = (r: AiRequest) => [r.ticket?.title ?? '', ...(r.thread ?? []).map((m) => m.content)].join('\n');

/** Up to `max` sentences of the thread scored by how often their words occur in the whole thread, in thread order. */
function extractiveSummary(title: string, thread: ThreadMessage[], max = 3): string {
  const all = thread.flatMap((m) => sentences(m.content));
  if (!all.length) return title;
  const freq = new Map<string, number>();
  for (const w of keywords(`${title}\n${all.join('\n')}`)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = all.map((s, i) => {
    const ws = keywords(s);
    return { s, i, score: ws.length ? ws.reduce((n, w) => n + (freq.get(w) ?? 0), 0) / Math.sqrt(ws.length) : 0 };
  });
  const chosen = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, max).sort((a, b) => a.i - b.i);
  return `${title}: ${chosen.map((c) => c.s).join(' ')}`;
}

/** The first paragraph of an article (at most ~600 characters, cut at a sentence end). */
function lead(a: ArticleCandidate): string {
  const para = a.content.split(/\n\s*\n/).map((p) => p.trim()).find(Boolean) ?? '';
  if (para.length <= 600) return para;
  const cut = para.slice(0, 600);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end > 0 ? cut.slice(0, end + 1) : `${cut}…`;
}

/** Whitespace collapsed, sentences capitalised, a lone `i` made `I`, repeated punctuation reduced, a final full stop. */
export function cleanUp(text: string): string {
  let t = text.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  t = t.replace(/([!?.,])\1+/g, '$1').replace(/ +([,.!?;:])/g, '$1');
  t = t.replace(/(^|[.!?]\s+|\n)(\p{Ll})/gu, (_m, pre: string, c: string) => pre + c.toUpperCase());
  t = t.replace(/(^|[^\p{L}])i(?=$|[^\p{L}'])/gu, '$1I').replace(/(^|[^\p{L}])i'(m|ve|ll|d)\b/gu, "$1I'$2");
  if (t && !/[.!?…:)]$/.test(t)) t += '.';
  return t;
}

/** The built-in provider: no network, deterministic (docs/adr/0029). */
export function localProvider(): AiProvider {
  return {
    name: 'local',
    async run(r: AiRequest): Promise<AiResultBody> {
      switch (r.action) {
        case 'auto-tag': {
          const text = threadText(r);
          const have = new Set((r.ticket?.tags ?? []).map((t) => t.toLowerCase()));
          return { tags: (r.knownTags ?? []).filter((t) => !have.has(t.toLowerCase()) && tagPattern(t).test(text)).slice(0, 10) };
        }
        case 'summarize':
          return { summary: extractiveSummary(r.ticket?.title ?? '', r.thread ?? []) };
        case 'suggest-reply': {
          const name = r.ticket?.customerName?.trim();
          const greeting = `Hi ${name || 'there'},`;
          const used = (r.articles ?? []).slice(0, 2);
          if (!used.length) {
            return { suggestion: `${greeting}\n\nThank you for reaching out. We are looking into this and will get back to you shortly.`, articleIds: [] };
          }
          const body = used.map((a) => `${a.title}:\n${lead(a)}`).join('\n\n');
          return { suggestion: `${greeting}\n\nThis should help:\n\n${body}\n\nLet us know if anything is still unclear.`, articleIds: used.map((a) => a.id) };
        }
        case 'improve':
          return { text: cleanUp(r.text ?? '') };
      }
    },
  };
}
