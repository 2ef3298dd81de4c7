import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestS3 } from '@promptpix/testing';
import { createLocalDiskStorage, resolveLocalFile } from './local-disk-storage';
import { createS3Storage, IMMUTABLE_CACHE_CONTROL } from './s3-storage';
import { describeStorageContract } from './testing';

describeStorageContract('local disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'promptpix-storage-'));
  const publicBaseUrl = 'http://localhost:3000/';
  const storage = createLocalDiskStorage({ root, publicBaseUrl });
  return {
    storage,
    async expectPublicUrlServes(key, body) {
      // The web process serves `/files/<key>`; resolveLocalFile is what it maps the path with.
      expect(storage.publicUrl(key)).toBe(`http://localhost:3000/files/${key}`);
      const file = resolveLocalFile(root, key);
      expect(file).toBe(join(root, key));
      expect(Buffer.compare(await readFile(file!), body)).toBe(0);
    },
    stop: () => rm(root, { recursive: true, force: true }),
  };
});

describeStorageContract('S3 (s3rver)', async () => {
  const s3 = await startTestS3();
  const storage = createS3Storage({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  });
  return {
    storage,
    async expectPublicUrlServes(key, body, contentType) {
      const res = await fetch(storage.publicUrl(key));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(contentType);
      expect(res.headers.get('cache-control')).toBe(IMMUTABLE_CACHE_CONTROL);
      expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), body)).toBe(0);
    },
    async stop() {
      storage.close();
      await s3.stop();
    },
  };
});

describe('resolveLocalFile', () => {
  const root = join(tmpdir(), 'promptpix-root');
  it.each(['../x', 'a/../../x', '/etc/passwd', 'a\\..\\x', 'a\0', '', 'a//b', '.', '..'])('refuses %j', (key) => {
    expect(resolveLocalFile(root, key)).toBeNull();
  });
  it('maps a nested key under the root', () => {
    expect(resolveLocalFile(root, 'images/ab.webp')).toBe(join(root, 'images', 'ab.webp'));
    expect(resolveLocalFile(`${root}/`, 'a..b/c..d.png')).toBe(join(root, 'a..b', 'c..d.png'));
  });
});

describe('S3 storage configuration', () => {
  it('builds public URLs from publicBaseUrl, endpoint or the AWS host', () => {
    const base = { bucket: 'pix', region: 'eu-west-1' };
    const cdn = createS3Storage({ ...base, publicBaseUrl: 'https://cdn.example.com/' });
    const minio = createS3Storage({ ...base, endpoint: 'http://minio:9000/', forcePathStyle: true });
    const aws = createS3Storage(base);
    try {
      expect(cdn.publicUrl('images/a b.webp')).toBe('https://cdn.example.com/images/a%20b.webp');
      expect(minio.publicUrl('images/a.webp')).toBe('http://minio:9000/pix/images/a.webp');
      expect(aws.publicUrl('images/a.webp')).toBe('https://pix.s3.eu-west-1.amazonaws.com/images/a.webp');
    } finally {
      for (const s of [cdn, minio, aws]) s.close();
    }
  });

  it('fails ping against a bucket that does not exist', async () => {
    const s3 = await startTestS3();
    const storage = createS3Storage({
      bucket: 'no-such-bucket',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    });
    try {
      await expect(storage.ping()).rejects.toThrow();
    } finally {
      storage.close();
      await s3.stop();
    }
  });
});
