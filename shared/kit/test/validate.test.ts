import { z } from 'zod';
import { metadataSchema, paginationFields } from '@helpdesk/contracts';
import { parseInput, ApiError, pageOf, changeSet, errorBody, useErrorDocsUrl } from '../src';

const schema = z.strictObject({
  title: z.string().min(1).max(255),
  priority: z.enum(['low', 'normal']).default('normal'),
  metadata: metadataSchema.optional(),
  nested: z.strictObject({ a: z.number() }).optional(),
});

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected a throw');
}

describe('parseInput', () => {
  it('returns parsed data with defaults', () => {
    expect(parseInput(schema, { title: 'x' })).toEqual({ title: 'x', priority: 'normal' });
  });
  it('names an unknown field as parameter_invalid', () => {
    const e = errorOf(() => parseInput(schema, { title: 'x', colour: 'red' }));
    expect([e.status, e.code, e.param]).toEqual([400, 'parameter_invalid', 'colour']);
  });
  it('names an unknown nested field with its path', () => {
    expect(errorOf(() => parseInput(schema, { title: 'x', nested: { a: 1, b: 2 } })).param).toBe('nested.b');
  });
  it('reports an absent required field as parameter_missing', () => {
    const e = errorOf(() => parseInput(schema, {}));
    expect([e.code, e.param]).toEqual(['parameter_missing', 'title']);
  });
  it('reports wrong type, bad enum and out of range as parameter_invalid', () => {
    expect(errorOf(() => parseInput(schema, { title: 5 })).code).toBe('parameter_invalid');
    expect(errorOf(() => parseInput(schema, { title: 'x', priority: 'meh' })).param).toBe('priority');
    expect(errorOf(() => parseInput(schema, { title: 'x'.repeat(256) })).code).toBe('parameter_invalid');
    expect(errorOf(() => parseInput(schema, { title: null })).code).toBe('parameter_invalid');
  });
  it('refuses metadata over 50 keys', () => {
    const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(errorOf(() => parseInput(schema, { title: 'x', metadata })).param).toBe('metadata');
  });
});

describe('pagination', () => {
  const q = z.strictObject(paginationFields());
  it('defaults and parses query strings', () => {
    expect(parseInput(q, {})).toEqual({ page: 1, pageSize: 20 });
    expect(parseInput(q, { page: '3', pageSize: '100' })).toEqual({ page: 3, pageSize: 100 });
  });
  it('refuses out of range and non-integers', () => {
    expect(errorOf(() => parseInput(q, { pageSize: '101' })).param).toBe('pageSize');
    expect(errorOf(() => parseInput(q, { page: '0' })).param).toBe('page');
    expect(errorOf(() => parseInput(q, { page: 'two' })).code).toBe('parameter_invalid');
  });
  it('computes totals', () => {
    expect(pageOf(2, 20, 41)).toEqual({ page: 2, pageSize: 20, total: 41, totalPages: 3, hasMore: true });
    expect(pageOf(1, 20, 0)).toEqual({ page: 1, pageSize: 20, total: 0, totalPages: 0, hasMore: false });
  });
});

describe('parseInput, missing fields of any kind', () => {
  it('reports an absent required enum or union as parameter_missing', () => {
    const s = z.strictObject({ sender: z.enum(['agent', 'customer']), at: z.union([z.string(), z.number()]) });
    expect([errorOf(() => parseInput(s, { at: 1 })).code, errorOf(() => parseInput(s, { at: 1 })).param]).toEqual(['parameter_missing', 'sender']);
    expect(errorOf(() => parseInput(s, { sender: 'agent' })).param).toBe('at');
    expect(errorOf(() => parseInput(s, { sender: 'robot', at: 1 })).code).toBe('parameter_invalid');
  });
});

describe('changeSet', () => {
  it('sets only what differs and remembers previous values, dates as ISO strings', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const c = changeSet<{ a: string; b: string[]; when: Date | null; n: number | null }>({ a: 'x', b: ['1'], when: at, n: null });
    expect(c.change('a', 'x')).toBe(false);
    expect(c.change('b', ['1'])).toBe(false);
    expect(c.change('when', null)).toBe(true);
    expect(c.change('n', 2)).toBe(true);
    expect(c.set).toEqual({ when: null, n: 2 });
    expect(c.previous).toEqual({ when: at.toISOString(), n: null });
    expect(c.changes()).toEqual(['when', 'n']);
  });
  it('applyDefined changes the listed fields the input defines, null included, and leaves the rest', () => {
    const c = changeSet<{ a: string; b: string | null; n: number; other: string }>({ a: 'x', b: 'y', n: 1, other: 'o' });
    const input: { a?: string; b?: string | null; n?: number; other?: string } = { a: 'x', b: null, n: undefined, other: 'changed' };
    c.applyDefined(input, ['a', 'b', 'n']);
    expect(c.set).toEqual({ b: null });
    expect(c.changes()).toEqual(['b']);
  });
});

describe("errors' doc_url", () => {
  afterEach(() => useErrorDocsUrl(undefined));
  it('points into the platform’s own error reference by default, and into ERROR_DOCS_URL when set', () => {
    const err = new ApiError('invalid_api_key', 'nope');
    expect(errorBody(err, 'req_1').error.doc_url).toBe('/docs/errors#invalid_api_key');
    useErrorDocsUrl('https://api.example.com/docs/errors');
    expect(errorBody(err, 'req_1').error.doc_url).toBe('https://api.example.com/docs/errors#invalid_api_key');
  });
});
