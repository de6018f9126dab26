export * from './platform';
export * from './config';
export * from './credentials';
export * from '../../registry';
export * from './run-processes';
export * from './banner';
