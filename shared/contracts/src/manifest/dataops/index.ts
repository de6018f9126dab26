export * from './search-and-tags';
export * from './transfer';
export * from './search';
export * from './owners';
