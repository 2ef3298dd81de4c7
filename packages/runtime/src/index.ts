export * from './config/config';
export * from './observability/logger';
export * from './config/admin-token';
export * from './infrastructure';
