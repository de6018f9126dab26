export * from './notifications';
export * from './widget-stream';
