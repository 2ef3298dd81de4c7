export * from './servers';
export * from './s3';
export * from './fault-proxy';
export * from './processes';
export * from './until';
export * from './event-stream';
export * from './chromium';
export * from './images';
