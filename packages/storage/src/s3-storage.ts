/**
 * Production storage: an S3 bucket (AWS or anything speaking the protocol). Objects are written
 * once under content-hash keys, so they are served with a one-year immutable cache header.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Storage } from '@promptpix/core';
import { assertStorageKey, trimTrailingSlashes, urlPathOfKey } from './keys';

export interface S3StorageConfig {
  bucket: string;
  region: string;
  /** For S3-compatible servers (MinIO, R2, s3rver); omit for AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Where browsers load objects from (a CDN); defaults to the bucket's own URL. */
  publicBaseUrl?: string;
  forcePathStyle?: boolean;
}

export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** S3 storage plus `close()`, which releases the client's sockets (not part of the port). */
export interface S3Storage extends Storage {
  close(): void;
}

const isNotFound = (error: unknown) => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'NoSuchKey' || error.name === 'NotFound') return true;
  return error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;
};

export function createS3Storage(config: S3StorageConfig): S3Storage {
  const { bucket, region } = config;
  const endpoint = config.endpoint ? trimTrailingSlashes(config.endpoint) : undefined;
  const client = new S3Client({
    region,
    endpoint,
    forcePathStyle: config.forcePathStyle ?? !!endpoint,
    credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
    // The SDK's default (checksums on every request) makes some S3-compatible servers store
    // different bytes than were sent; only compute/validate checksums when an operation requires it.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

  const publicBase = config.publicBaseUrl
    ? trimTrailingSlashes(config.publicBaseUrl)
    : endpoint
      ? `${endpoint}/${bucket}`
      : `https://${bucket}.s3.${region}.amazonaws.com`;

  return {
    async put(key, body, contentType) {
      assertStorageKey(key);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentLength: body.length,
          ContentType: contentType,
          CacheControl: IMMUTABLE_CACHE_CONTROL,
        }),
      );
    },

    async get(key) {
      assertStorageKey(key);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!out.Body) return Buffer.alloc(0);
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async exists(key) {
      assertStorageKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },

    async delete(key) {
      assertStorageKey(key);
      // S3 answers 204 for a missing key too.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    publicUrl(key) {
      return `${publicBase}/${urlPathOfKey(key)}`;
    },

    async ping() {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    },

    close() {
      client.destroy();
    },
  };
}
