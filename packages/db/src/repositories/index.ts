export * from './accounts';
export * from './api-keys';
export * from './images';
export * from './events';
export * from './library';
export * from './image-flags';
export * from './permalinks';
export * from './styles';
