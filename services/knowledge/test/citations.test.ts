import { citedArticleIds, usesIn } from '../src/articles/citations';

const A = 'art_0123456789abcdefABCDEF01';
const B = 'art_ZYXWVUTSRQPONMLKJIHGFEDC';

describe('the citation rule of useCount', () => {
  it('finds [[article:…]] references and help-center links (with or without the title slug), each once', () => {
    expect(citedArticleIds(`See [[article:${A}]] and [[article:${A}]]`)).toEqual([A]);
    expect(citedArticleIds(`https://x.example/help/acme/articles/${B}-how-to and /help/acme/articles/${A}?mode=test`)).toEqual([B, A]);
    // not citations: an id too short to be one, a link outside a help center, a reference without its brackets, another prefix
    expect(citedArticleIds(`[[article:art_short]] https://x.example/articles/${A} article:${A} [[article:tkt_0123456789abcdef]]`)).toEqual([]);
  });

  it('counts public agent and AI replies only, one use per message and article', () => {
    const uses = usesIn([
      { sender: 'agent', isInternal: false, content: `[[article:${A}]] [[article:${A}]] [[article:${B}]]` },
      { sender: 'ai', isInternal: false, content: `[[article:${A}]]` },
      { sender: 'agent', isInternal: true, content: `[[article:${A}]]` },
      { sender: 'customer', isInternal: false, content: `[[article:${A}]]` },
      { sender: 'system', isInternal: false, content: `[[article:${B}]]` },
    ]);
    expect(Object.fromEntries(uses)).toEqual({ [A]: 2, [B]: 1 });
  });
});
