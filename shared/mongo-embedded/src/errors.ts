/** MongoDB-shaped server errors: `{ ok: 0, errmsg, code, codeName }` plus optional extra fields. */
export const CODE_NAMES: Record<number, string> = {
  1: 'InternalError',
  2: 'BadValue',
  9: 'FailedToParse',
  11: 'UserNotFound',
  14: 'TypeMismatch',
  15: 'Overflow',
  20: 'IllegalOperation',
  26: 'NamespaceNotFound',
  27: 'IndexNotFound',
  43: 'CursorNotFound',
  48: 'NamespaceExists',
  50: 'MaxTimeMSExpired',
  59: 'CommandNotFound',
  66: 'ImmutableField',
  67: 'CannotCreateIndex',
  72: 'InvalidOptions',
  73: 'InvalidNamespace',
  85: 'IndexOptionsConflict',
  86: 'IndexKeySpecsConflict',
  112: 'WriteConflict',
  115: 'CommandNotSupported',
  251: 'NoSuchTransaction',
  256: 'TransactionCommitted',
  263: 'OperationNotSupportedInTransaction',
  11000: 'DuplicateKey',
  40324: 'Location40324',
};

export class MongoCommandError extends Error {
  constructor(
    public readonly code: number,
    message: string,
    public readonly extra: Record<string, unknown> = {},
    public readonly errorLabels?: string[],
  ) {
    super(message);
  }

  get codeName(): string {
    return CODE_NAMES[this.code] ?? 'UnknownError';
  }

  toReply(): Record<string, unknown> {
    const r: Record<string, unknown> = { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
    if (this.errorLabels?.length) r.errorLabels = this.errorLabels;
    return r;
  }
}

export const err = (code: number, message: string, extra?: Record<string, unknown>, labels?: string[]) =>
  new MongoCommandError(code, message, extra, labels);

export const writeConflict = () =>
  err(
    112,
    'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
    {},
    ['TransientTransactionError'],
  );
