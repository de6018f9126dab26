import type { CommunityFieldConfig } from '@helpdesk/contracts';
import { COMMUNITY_LIMITS } from '@helpdesk/contracts';
import { parameterInvalid, parameterMissing } from '@helpdesk/kit';

/** Why a value does not fit its field, or null. */
function valueProblem(field: CommunityFieldConfig, value: unknown): string | null {
  switch (field.type) {
    case 'text':
      return typeof value === 'string' && value.length <= COMMUNITY_LIMITS.textValueMax ? null : `must be a string of at most ${COMMUNITY_LIMITS.textValueMax} characters`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select':
      return typeof value === 'string' && field.options.includes(value) ? null : `must be one of ${field.options.map((o) => `'${o}'`).join(', ')}`;
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
        new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
        ? null
        : 'must be a date YYYY-MM-DD';
  }
}

/**
 * A post's custom fields after applying `patch` to `current` (create: `current` is empty): only the
 * topic's fields, each value of its type, null removes a value (not a required one), and every
 * required field present afterwards. Errors name `customFields.<fieldId>`.
 */
export function mergedCustomFields(config: CommunityFieldConfig[], current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const byId = new Map(config.map((f) => [f.fieldId, f]));
  const next = { ...current };
  for (const [fieldId, value] of Object.entries(patch)) {
    const field = byId.get(fieldId);
    const param = `customFields.${fieldId}`;
    if (value === null) {
      if (field?.required) throw parameterInvalid(param, `The field '${field.name}' is required by the topic and cannot be removed.`);
      delete next[fieldId];
      continue;
    }
    if (!field) throw parameterInvalid(param, `'${fieldId}' is not a field of this post's topic.`);
    const problem = valueProblem(field, value);
    if (problem) throw parameterInvalid(param, `The field '${field.name}' ${problem}.`);
    next[fieldId] = value;
  }
  for (const field of config) {
    if (field.required && next[field.fieldId] === undefined) {
      throw parameterMissing(`customFields.${field.fieldId}`, `The topic requires the field '${field.name}' (${field.fieldId}).`);
    }
  }
  return next;
}
