export * from './servers';
export * from './s3';
