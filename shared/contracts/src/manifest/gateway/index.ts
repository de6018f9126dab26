import { API_KEYS } from './api-keys';
import { IDENTITY } from './identity';
import { OPENAPI_DOCUMENT } from './openapi-document';
import { STREAM_TOKENS } from './stream-tokens';

/** The gateway's own operations (it answers them itself; no service behind them). */
export * from './identity';
export * from './api-keys';
export * from './stream-tokens';
export * from './openapi-document';
export * from './sessions';

export const GATEWAY = { ...IDENTITY, ...API_KEYS, ...STREAM_TOKENS, ...OPENAPI_DOCUMENT };
