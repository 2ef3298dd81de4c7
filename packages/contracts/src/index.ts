export * from './generate';
export * from './job';
export * from './errors';
export * from './embed';
export * from './text';
export * from './responses';
export * from './webhook';
export * from './instant';
