export * from './client';
export * from './platform';
