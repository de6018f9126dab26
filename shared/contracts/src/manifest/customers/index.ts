export * from './customers';
export * from './widget';
export * from './dataops';
