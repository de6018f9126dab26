import type { SearchHit, SearchHits } from '@helpdesk/contracts';
import { ApiError } from './errors';
import type { AnyScopedModel } from './scoped';
import { escapeRegex } from './tenancy';

/**
 * Ranked search over one scoped model, the one rule every owning service applies (docs/adr/0034):
 * every word of the query must be a word of the record (its `searchTokens`: the normalised words of
 * its title and body fields, see searchTokensOf); a record whose title words (`titleTokens`) hold
 * every word ranks above one matched in its body; a title whose words are the query's scores 3, a
 * title match 2, a body match 1; ties go to the most recently updated. Words are looked up in the
 * multikey index `{teamId, mode, searchTokens}`, never by scanning the partition's text.
 */
export interface RankedSearchSpec<T> {
  /** The field holding the title's words: `titleTokens`, or `searchTokens` when every searched field is a title (a customer's name and email). */
  titleTokensField: 'titleTokens' | 'searchTokens';
  /** Fields to read for the answer (besides `_id`, `createdAt`, `updatedAt`). */
  projection: Record<string, 1>;
  titleOf(doc: T): string;
  /** The text a snippet is cut from (null: none). */
  bodyOf(doc: T): string | null;
  /** A record's token fields from its text (what its writes store), and the fields they come from. */
  tokensOf(doc: any): Record<string, string[]>;
  tokenSources: Record<string, 1>;
}

const SNIPPET_SIDE = 60;
const WORDS_MAX = 10;
/** A record keeps at most this many distinct words, each at most TOKEN_LENGTH_MAX characters (longer ones are not words a person types). */
const TOKENS_MAX = 10_000;
const TOKEN_LENGTH_MAX = 64;

/**
 * The searchable words of `texts`, each once: accents dropped (NFKD), lowercased, split on anything
 * that is not a letter or a digit ("Re: printer-jam @ floor 3" → re, printer, jam, floor, 3). Stored
 * on each record as `searchTokens` (and `titleTokens`); a query is split the same way.
 */
export function searchTokensOf(...texts: (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const w of text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (!w || w.length > TOKEN_LENGTH_MAX) continue;
      out.add(w);
      if (out.size >= TOKENS_MAX) return [...out];
    }
  }
  return [...out];
}

export const searchWords = (q: string) => searchTokensOf(q).slice(0, WORDS_MAX);

/** About 120 characters of `text` around the first word found in it, on one line. */
export function snippetOf(text: string | null, words: string[]): string | null {
  if (!text) return null;
  const lower = text.toLowerCase();
  const at = Math.min(...words.map((w) => lower.indexOf(w)).filter((i) => i >= 0));
  if (!Number.isFinite(at)) return null;
  const start = Math.max(0, at - SNIPPET_SIDE);
  const end = Math.min(text.length, at + SNIPPET_SIDE);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}

type Searchable = { _id: string; createdAt: Date; updatedAt: Date };

/** The query word carried by the fewest records (one index count each): the one the index looks up. */
async function rarestWord(model: AnyScopedModel, words: string[]): Promise<string> {
  if (words.length === 1) return words[0];
  const counts = await Promise.all(words.map((w) => model.countDocuments({ searchTokens: w })));
  return words[counts.indexOf(Math.min(...counts))];
}

/** Records a partition kept from before search tokens existed get them on its first search (a batch at a time, at most this many batches). */
const BACKFILL_BATCH = 500;
const BACKFILL_BATCHES_MAX = 100;

/**
 * Gives the scoped partition's records written before search tokens existed their token fields
 * (docs/adr/0034): found through the index (a missing field is a null key), computed from their
 * text, written unless a write stored them meanwhile. Once done this is one empty index lookup.
 */
async function backfillTokens(model: AnyScopedModel, spec: Pick<RankedSearchSpec<unknown>, 'tokensOf' | 'tokenSources'>): Promise<void> {
  for (let i = 0; i < BACKFILL_BATCHES_MAX; i++) {
    const stale = await model.find({ searchTokens: null, $and: [{ searchTokens: { $exists: false } }] }, spec.tokenSources).limit(BACKFILL_BATCH).lean<{ _id: string }[]>();
    if (!stale.length) return;
    await model.bulkWrite(stale.map((d) => ({ updateOne: { filter: { _id: d._id, searchTokens: { $exists: false } }, update: { $set: spec.tokensOf(d) } } })));
    if (stale.length < BACKFILL_BATCH) return;
  }
}

export async function rankedSearch<T extends Searchable>(
  model: AnyScopedModel,
  spec: RankedSearchSpec<T>,
  q: { q: string; limit: number },
  extraFilter: Record<string, unknown> = {},
): Promise<SearchHits> {
  const words = searchWords(q.q);
  if (!words.length) return { hits: [], total: 0 };
  await backfillTokens(model, spec);
  // An equality on one word is the index lookup; $all then keeps the records that hold every word
  // (a one-word query is that equality alone, which the index answers without reading a record to count).
  const lookup = { searchTokens: await rarestWord(model, words) };
  const and = [...(words.length > 1 ? [{ searchTokens: { $all: words } }] : []), ...(Object.keys(extraFilter).length ? [extraFilter] : [])];
  const matches = and.length ? { ...lookup, $and: and } : lookup;
  const inTitle = { [spec.titleTokensField]: { $all: words } };
  const projection = { ...spec.projection, createdAt: 1, updatedAt: 1 };
  const newest = { updatedAt: -1, _id: -1 } as const;
  const [total, titled] = await Promise.all([
    model.countDocuments(matches),
    model.find({ $and: [matches, inTitle] }, projection).sort(newest).limit(q.limit).lean<T[]>(),
  ]);
  const bodied =
    titled.length < q.limit && spec.titleTokensField !== 'searchTokens'
      ? await model.find({ $and: [matches, { $nor: [inTitle] }] }, projection).sort(newest).limit(q.limit - titled.length).lean<T[]>()
      : [];
  const phrase = words.join(' ');
  const hit = (doc: T, matchedIn: SearchHit['matchedIn']): SearchHit => {
    const title = spec.titleOf(doc);
    const score = matchedIn === 'body' ? 1 : searchTokensOf(title).join(' ') === phrase ? 3 : 2;
    return { id: doc._id, title, matchedIn, snippet: snippetOf(spec.bodyOf(doc), words), score, createdAt: doc.createdAt.toISOString(), updatedAt: doc.updatedAt.toISOString() };
  };
  const hits = [...titled.map((d) => hit(d, 'title')).sort((a, b) => b.score - a.score), ...bodied.map((d) => hit(d, 'body'))];
  return { hits, total };
}

/** Every tag on a scoped model's records with how many carry it, most used first (then by name); `search` is a case-insensitive substring. */
export async function tagCounts(model: AnyScopedModel, q: { search?: string; limit: number }): Promise<{ tag: string; count: number }[]> {
  const search = q.search?.trim();
  const rows = await model.aggregate<{ _id: string; count: number }>([
    { $match: { 'tags.0': { $exists: true } } },
    { $project: { tags: 1 } },
    { $unwind: '$tags' },
    ...(search ? [{ $match: { tags: { $regex: escapeRegex(search), $options: 'i' } } }] : []),
    { $group: { _id: '$tags', count: { $sum: 1 } } },
    { $sort: { count: -1, _id: 1 } },
    { $limit: q.limit },
  ]);
  return rows.map((r) => ({ tag: r._id, count: r.count }));
}

/** A record's tags with `fromTag` replaced by `toTag` (null: removed), duplicates collapsed, order kept. */
export const rewriteTags = (tags: string[], fromTag: string, toTag: string | null): string[] => [
  ...new Set(tags.flatMap((t) => (t === fromTag ? (toTag === null ? [] : [toTag]) : [t]))),
];

/**
 * Merges or removes a tag on every record that carries it, one record at a time through `update`
 * (the resource's own update rule: its validation and its `updated` event). Returns how many changed.
 */
export async function rewriteTagEverywhere(
  model: AnyScopedModel,
  body: { fromTag: string; toTag: string | null },
  update: (id: string, tags: string[]) => Promise<unknown>,
): Promise<{ updated: number }> {
  const ids = (await model.find({ tags: body.fromTag }, { _id: 1 }).lean<{ _id: string }[]>()).map((r) => r._id);
  let updated = 0;
  for (const id of ids) {
    const cur = await model.findOne({ _id: id }, { tags: 1 }).lean<{ tags: string[] }>();
    // Gone, or changed by someone else meanwhile: nothing to rewrite.
    if (!cur?.tags.includes(body.fromTag)) continue;
    try {
      await update(id, rewriteTags(cur.tags, body.fromTag, body.toTag));
      updated++;
    } catch (err) {
      // Deleted between the read and the update: nothing left to rewrite.
      if (!(err instanceof ApiError && err.code === 'resource_not_found')) throw err;
    }
  }
  return { updated };
}

/** A saved view's `sortField`/`sortDirection` as a mongo sort, ties broken by id. */
export function viewSortOf(q: { sortField: string; sortDirection: 'asc' | 'desc' }, columns: Record<string, string>): Record<string, 1 | -1> {
  const dir = q.sortDirection === 'asc' ? 1 : -1;
  return { [columns[q.sortField] ?? 'createdAt']: dir, _id: dir };
}
