export * from './client';
export * from './platform';
export * from './broker';
export * from './service';
