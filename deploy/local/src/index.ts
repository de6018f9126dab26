export * from './platform';
export * from './config';
export * from './credentials';
