export * from './generate';
export * from './job';
export * from './errors';
