export * from './config';
export * from './logger';
export * from './admin-token';
export * from './infrastructure';
