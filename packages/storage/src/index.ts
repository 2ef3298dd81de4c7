export { createLocalDiskStorage, resolveLocalFile, type LocalDiskStorageConfig } from './local-disk-storage';
export { createS3Storage, IMMUTABLE_CACHE_CONTROL, type S3Storage, type S3StorageConfig } from './s3-storage';
export { InvalidStorageKeyError, storageKeyProblem } from './keys';
