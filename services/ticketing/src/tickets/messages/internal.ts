import { parameterInvalid } from '@helpdesk/kit';

/** `messageType` and `isInternal` say the same thing; both sent and disagreeing is a 400. */
export function resolveInternal(input: { messageType?: 'internal' | 'public'; isInternal?: boolean }, paramPrefix = ''): boolean {
  const fromType = input.messageType === undefined ? undefined : input.messageType === 'internal';
  if (fromType !== undefined && input.isInternal !== undefined && fromType !== input.isInternal) {
    throw parameterInvalid(
      `${paramPrefix}isInternal`,
      `isInternal (${input.isInternal}) disagrees with messageType (${input.messageType}); send one, or both agreeing.`,
    );
  }
  return fromType ?? input.isInternal ?? false;
}
