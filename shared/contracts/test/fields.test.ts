import { z } from 'zod';
import { FREE_FORM, freeFormObject, freeFormProblem, metadataSchema } from '../src';

const nest = (depth: number): Record<string, unknown> => {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < depth; i++) v = { n: v };
  return v;
};

describe('free-form objects (metadata, customFields)', () => {
  it('accepts what stays within the bounds', () => {
    expect(freeFormProblem({ plan: 'gold', seats: 5, flags: [true, null], nested: { a: { b: ['x'] } } })).toBeNull();
    expect(freeFormProblem(nest(FREE_FORM.depthMax))).toBeNull();
  });

  it.each([
    ['too deep', nest(FREE_FORM.depthMax + 1), /nest at most/],
    ['5,000 levels deep', nest(5_000), /nest at most/],
    ['a long key below the top', { a: { ['k'.repeat(41)]: 1 } }, /keys must be 1 to 40/],
    ['a $ key below the top', { a: [{ $where: 1 }] }, /'\$'/],
    ['a dotted key', { 'a.b': 1 }, /'\.'/],
    ['a long string', { a: 'x'.repeat(FREE_FORM.stringMax + 1) }, /strings may be at most/],
    ['a wide array', { a: Array.from({ length: FREE_FORM.arrayMax + 1 }, () => 0) }, /arrays may hold/],
    ['too many bytes', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'x'.repeat(500)])), /bytes as JSON/],
  ])('refuses %s', (_what, value, message) => {
    expect(freeFormProblem(value as Record<string, unknown>)?.message).toMatch(message);
  });

  it('reports a problem as the field itself, saying where inside it', () => {
    const r = z.object({ metadata: metadataSchema }).safeParse({ metadata: { a: { b: [{ $x: 1 }] } } });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['metadata']);
    expect(r.error!.issues[0].message).toBe("at a.b[0].$x: keys may not start with '$' or contain '.'");
  });

  it('counts top-level keys unless the caller checks a merged result', () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(metadataSchema.safeParse(many).success).toBe(false);
    expect(freeFormObject(null).safeParse(many).success).toBe(true);
  });
});
