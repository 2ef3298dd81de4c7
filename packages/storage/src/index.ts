export { createLocalDiskStorage, resolveLocalFile, type LocalDiskStorageConfig } from './local-disk-storage';
export { InvalidStorageKeyError, storageKeyProblem } from './keys';
