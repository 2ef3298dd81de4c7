import type { JobRecord } from '@promptpix/core';
import { backendProgressEvent, progressEvent, sseEventFrame, sseFrame } from './job-events';

const job = (patch: Partial<JobRecord>): JobRecord => ({
  jobId: 'j-1',
  accountId: 'a-1',
  status: 'queued',
  createdAt: '2026-11-23T07:00:00.000Z',
  request: { prompt: 'x' } as JobRecord['request'],
  ...patch,
});
const base = { jobId: 'j-1', createdAt: '2026-11-23T07:00:00.000Z' };
const done = { completedAt: '2026-11-23T07:00:12.000Z' };

describe('progressEvent', () => {
  it.each([
    ['queued, 2 ahead', job({}), 2, { id: 'queued-2', data: { ...base, status: 'queued', position: 2 } }],
    ['queued, position unknown', job({}), null, { id: 'queued', data: { ...base, status: 'queued' } }],
    [
      'processing: no position',
      job({ status: 'processing', startedAt: '2026-11-23T07:00:01.000Z' }),
      0,
      { id: 'processing', data: { ...base, status: 'processing' } },
    ],
    [
      'completed: as polled',
      job({ status: 'completed', imageId: 'i-1', imageUrl: 'https://x/i.webp', quotaCharged: true, ...done }),
      null,
      { id: 'completed', data: { ...base, status: 'completed', imageId: 'i-1', imageUrl: 'https://x/i.webp', ...done } },
    ],
    [
      'failed: with its error',
      job({ status: 'failed', error: 'Image generation failed: boom', ...done }),
      null,
      { id: 'failed', data: { ...base, status: 'failed', error: 'Image generation failed: boom', ...done } },
    ],
  ])('%s', (_name, record, position, expected) => {
    expect(progressEvent(record, position)).toEqual(expected);
  });
});

describe('sseFrame', () => {
  it('writes id, event and one line of JSON data, ended by a blank line', () => {
    expect(sseFrame('queued-0', 'status', { a: 'line\nbreak' })).toBe('id: queued-0\nevent: status\ndata: {"a":"line\\nbreak"}\n\n');
  });
});

describe('backendProgressEvent', () => {
  it.each([
    [
      'processing with a fraction and message',
      job({ status: 'processing', progress: { fraction: 0.4, message: 'step 8/20' } }),
      { jobId: 'j-1', fraction: 0.4, message: 'step 8/20' },
    ],
    ['processing with a message only', job({ status: 'processing', progress: { message: 'Loading model' } }), { jobId: 'j-1', message: 'Loading model' }],
    ['processing, nothing reported', job({ status: 'processing' }), null],
    ['completed: the last progress is not repeated', job({ status: 'completed', progress: { fraction: 1 } }), null],
    ['queued', job({ progress: { fraction: 0.2 } }), null],
  ])('%s', (_name, record, expected) => {
    expect(backendProgressEvent(record)).toEqual(expected);
  });

  it('frames a progress event without an id, so Last-Event-ID stays the last status', () => {
    expect(sseEventFrame('progress', { jobId: 'j-1', fraction: 0.5 })).toBe('event: progress\ndata: {"jobId":"j-1","fraction":0.5}\n\n');
  });
});
