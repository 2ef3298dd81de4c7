import type { JobRecord } from '@promptpix/core';
import { createLogger } from '@promptpix/runtime';
import sharp from 'sharp';
import winston from 'winston';
import { editInputsOf, mayReadInput } from './edit-inputs';
import { upscaleImage } from './upscale';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const logger = createLogger({
  level: 'error',
  format: 'json',
  service: 'test',
  transports: [new winston.transports.Stream({ stream: process.stderr, silent: true })],
});

const job = (over: Partial<JobRecord>): JobRecord => ({
  jobId: 'job-1',
  accountId: ACCOUNT,
  status: 'processing',
  createdAt: '2026-11-27T00:00:00.000Z',
  request: { prompt: 'p', strength: 1, width: 128, height: 64, format: 'png' },
  ...over,
});

describe('upscaleImage without a model upscaler: resampled, encoded at the size asked for', () => {
  const source = { id: 'src', accountId: ACCOUNT, storageKey: 'images/src.png', seed: 9n, width: 64, height: 32 };
  const images = { findById: async (id: string) => (id === source.id ? source : null) };

  it('makes the copy 2× larger, alpha kept for PNG', async () => {
    const bytes = await sharp({ create: { width: 64, height: 32, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const made = await upscaleImage(
      { images, storage: { get: async () => bytes }, logger },
      job({ deriveFrom: 'src', upscale: { factor: 2, inputKey: null } }),
      undefined,
      9,
      new AbortController().signal,
      undefined,
    );
    const meta = await sharp(made.encoded.data).metadata();
    expect([meta.width, meta.height, meta.format, meta.hasAlpha]).toEqual([128, 64, 'png', true]);
    expect(made).toMatchObject({ seed: 9, sourceImageId: 'src', routed: undefined });
  });

  it.each([
    ['another account’s image', { ...source, accountId: '22222222-2222-4222-8222-222222222222' }, Buffer.alloc(1), 'The image to upscale is gone'],
    ['a file gone from storage', source, null, 'The image to upscale is gone'],
  ])('%s fails for good', async (_name, row, bytes, message) => {
    const run = upscaleImage(
      { images: { findById: async () => row }, storage: { get: async () => bytes }, logger },
      job({ deriveFrom: 'src', upscale: { factor: 2, inputKey: null } }),
      undefined,
      9,
      new AbortController().signal,
      undefined,
    );
    await expect(run).rejects.toMatchObject({ name: 'PermanentJobError', message });
  });
});

describe('edit inputs are read only within the job’s account', () => {
  it.each([
    [`uploads/${ACCOUNT}/${'a'.repeat(64)}.png`, true],
    [`images/${'a'.repeat(64)}.webp`, true],
    [`uploads/22222222-2222-4222-8222-222222222222/${'a'.repeat(64)}.png`, false],
    [`uploads/${ACCOUNT}-evil/${'a'.repeat(64)}.png`, false],
    [`references/${'a'.repeat(64)}.png`, false],
    [`images/../uploads/x.png`, false],
    [`uploads/${ACCOUNT}/../22222222-2222-4222-8222-222222222222/${'a'.repeat(64)}.png`, false],
    [`uploads/${ACCOUNT}/${'a'.repeat(63)}.png`, false],
  ])('%s → %s', (key, allowed) => {
    expect(mayReadInput(ACCOUNT, key)).toBe(allowed);
  });

  it('a job without an edit reads nothing; an input that cannot be decoded fails for good', async () => {
    const reads: string[] = [];
    const storage = {
      get: async (key: string) => {
        reads.push(key);
        return Buffer.from('not an image');
      },
    };
    expect(await editInputsOf({ storage }, job({}))).toBeUndefined();
    expect(reads).toEqual([]);
    const input = { storageKey: `uploads/${ACCOUNT}/${'a'.repeat(64)}.png`, sha256: 'a'.repeat(64), width: 64, height: 64 };
    await expect(editInputsOf({ storage }, job({ request: { ...job({}).request, edit: { images: [input] } } }))).rejects.toMatchObject({
      name: 'PermanentJobError',
      message: expect.stringMatching(/^Image generation failed: an input of the edit cannot be decoded/),
    });
  });
});
