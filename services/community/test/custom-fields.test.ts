import type { CommunityFieldConfig } from '@helpdesk/contracts';
import { mergedCustomFields } from '../src/posts/custom-fields';

const field = (fieldId: string, type: CommunityFieldConfig['type'], required = false, options: string[] = []): CommunityFieldConfig => ({
  fieldId,
  name: fieldId,
  type,
  required,
  options,
});
const CONFIG = [field('area', 'select', true, ['billing', 'inbox']), field('seats', 'number'), field('beta', 'boolean'), field('due', 'date'), field('note', 'text')];

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    const e = err as { code: string; param: string };
    return { code: e.code, param: e.param };
  }
  throw new Error('not refused');
};

describe('a post\'s custom fields against its topic\'s configuration', () => {
  it('accepts values of each type and merges a patch (null removes an optional value)', () => {
    const created = mergedCustomFields(CONFIG, {}, { area: 'inbox', seats: 3, beta: false, due: '2024-02-29', note: 'hi' });
    expect(created).toEqual({ area: 'inbox', seats: 3, beta: false, due: '2024-02-29', note: 'hi' });
    expect(mergedCustomFields(CONFIG, created, { seats: null, area: 'billing' })).toEqual({ area: 'billing', beta: false, due: '2024-02-29', note: 'hi' });
  });

  it.each([
    ['a field of another topic', { area: 'inbox', other: 1 }, 'parameter_invalid', 'customFields.other'],
    ['a required field missing', { seats: 1 }, 'parameter_missing', 'customFields.area'],
    ['a select value not offered', { area: 'sales' }, 'parameter_invalid', 'customFields.area'],
    ['text for a number', { area: 'inbox', seats: '3' }, 'parameter_invalid', 'customFields.seats'],
    ['a string for a boolean', { area: 'inbox', beta: 'yes' }, 'parameter_invalid', 'customFields.beta'],
    ['an impossible date', { area: 'inbox', due: '2023-02-29' }, 'parameter_invalid', 'customFields.due'],
    ['a date with a time', { area: 'inbox', due: '2023-02-01T10:00:00Z' }, 'parameter_invalid', 'customFields.due'],
    ['a number for text', { area: 'inbox', note: 5 }, 'parameter_invalid', 'customFields.note'],
    ['text over 5,000 characters', { area: 'inbox', note: 'x'.repeat(5_001) }, 'parameter_invalid', 'customFields.note'],
  ])('refuses %s', (_n, values, code, param) => {
    expect(refusal(() => mergedCustomFields(CONFIG, {}, values))).toEqual({ code, param });
  });

  it('a required value cannot be removed by a patch; a value of a field the topic dropped can', () => {
    expect(refusal(() => mergedCustomFields(CONFIG, { area: 'inbox' }, { area: null }))).toEqual({ code: 'parameter_invalid', param: 'customFields.area' });
    expect(mergedCustomFields(CONFIG, { area: 'inbox', gone: 1 }, { gone: null })).toEqual({ area: 'inbox' });
  });
});
