export * from './client';
export * from './service';
export * from './harness';
export * from './eventually';
export * from './events';
export * from './webhook-receiver';
export * from './openapi-check';
export * from './commands';
