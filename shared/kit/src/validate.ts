import { z } from 'zod';
import { ApiError, parameterInvalid, parameterMissing } from './errors';

/**
 * Parses client input with a zod schema and turns the first problem into the documented error:
 * an unknown field is `parameter_invalid` naming that field, an absent required field is
 * `parameter_missing`, anything else (wrong type, bad enum, out of range) `parameter_invalid`.
 * Object schemas should be `z.strictObject` so unknown fields are caught.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw toApiError(result.error);
}

export function toApiError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const param = [...path, issue.keys[0]].join('.');
    return parameterInvalid(param, `Received unknown parameter: ${param}.`);
  }
  const param = path.length ? path.join('.') : undefined;
  // Whatever the schema (string, enum, union…), no value at a required path means it is missing.
  if (issue.input === undefined && param && issue.code !== 'custom') return parameterMissing(param);
  return parameterInvalid(param, param ? `Invalid ${param}: ${issue.message}.` : `Invalid request: ${issue.message}.`);
}

/** Body must be a JSON object (not an array, not a scalar) for create/update endpoints. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('invalid_json', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

