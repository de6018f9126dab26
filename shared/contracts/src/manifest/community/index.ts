export * from './community';
export * from './dataops';
