export * from './knowledge';
export * from './dataops';
