/**
 * How a JobRecord is laid out in a Redis hash: one field per property, strings as they are,
 * numbers in decimal, booleans as "true"/"false", the request as JSON. Listing every property here (the mapped type
 * below) means a new JobRecord field fails to compile until it is given an encoding.
 */
import type { JobPatch, JobRecord } from '@promptpix/core';

type FieldKind = 'string' | 'number' | 'boolean' | 'json';

const fieldKinds: { [K in keyof Required<JobRecord>]: FieldKind } = {
  jobId: 'string',
  accountId: 'string',
  status: 'string',
  createdAt: 'string',
  request: 'json',
  startedAt: 'string',
  completedAt: 'string',
  imageId: 'string',
  imageUrl: 'string',
  error: 'string',
  quotaCharged: 'boolean',
  quotaPeriodStart: 'string',
  deriveFrom: 'string',
  upscale: 'json',
  derivedPlace: 'boolean',
  flightKey: 'string',
  activeSlot: 'string',
  webhookUrl: 'string',
  webhookSubscribers: 'boolean',
  seed: 'number',
  cancelAt: 'string',
  addToPermalinks: 'json',
  model: 'string',
  fallbackFrom: 'string',
  progress: 'json',
  revisedPrompt: 'string',
};

const fieldNames = Object.keys(fieldKinds) as Array<keyof JobRecord>;

/** Flat [field, value, field, value, ...] for HSET; undefined properties are left out. */
export function encodeJobFields(record: Partial<JobRecord> | JobPatch): string[] {
  const out: string[] = [];
  const source = record as Record<string, unknown>;
  for (const name of fieldNames) {
    const value = source[name];
    if (value === undefined) continue;
    const kind = fieldKinds[name];
    out.push(name, kind === 'json' ? JSON.stringify(value) : kind === 'boolean' ? (value ? 'true' : 'false') : String(value));
  }
  return out;
}

/** The record a hash holds, or null for an empty (missing) hash. Unknown fields are ignored. */
export function decodeJobFields(hash: Record<string, string>): JobRecord | null {
  if (!hash.jobId) return null;
  const record: Record<string, unknown> = {};
  for (const name of fieldNames) {
    const raw = hash[name];
    if (raw === undefined) continue;
    const kind = fieldKinds[name];
    record[name] = kind === 'json' ? JSON.parse(raw) : kind === 'boolean' ? raw === 'true' : kind === 'number' ? Number(raw) : raw;
  }
  return record as unknown as JobRecord;
}
