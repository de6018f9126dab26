export * from './ids';
export * from './errors';
export * from './permissions';
export * from './internal-token';
export * from './events';
