import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import winston from 'winston';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUploadService } from '@promptpix/core';
import {
  createDashboardSessionRepository,
  createFailedJobRepository,
  createImageRepository,
  createSignInLinkRepository,
  createUploadRepository,
  createWebhookRepository,
  type Database,
} from '@promptpix/db';
import { sanitizeImageInput } from '@promptpix/models';
import { bothDatabases } from '@promptpix/db/testing';
import { createLogger, createStorage } from '@promptpix/runtime';
import sharp from 'sharp';
import { housekeepingTasks, startHousekeeping, type HousekeepingTask } from './housekeeping';

const NOW = new Date('2026-11-23T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    service: 'housekeeping-test',
    transports: [
      new winston.transports.Stream({
        stream: new Writable({
          write: (chunk, _e, done) => {
            lines.push(JSON.parse(String(chunk)));
            done();
          },
        }),
      }),
    ],
  });
  return { logger, lines };
}

describe.each(bothDatabases)('housekeeping (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  it('deletes expired sessions, day-old expired links and webhook log entries past the window, of every account, and nothing else', async () => {
    const gone = await db.prisma.account.create({ data: { handle: `gone-${randomUUID().slice(0, 8)}`, email: 'gone@example.com', status: 'approved' } });
    const active = await db.prisma.account.create({ data: { handle: `active-${randomUUID().slice(0, 8)}`, email: 'active@example.com', status: 'approved' } });
    const token = () => randomUUID();

    await db.prisma.dashboardSession.createMany({
      data: [
        { accountId: gone.id, tokenHash: token(), csrfToken: 'x', expiresAt: hoursAgo(24 * 30) },
        { accountId: gone.id, tokenHash: token(), csrfToken: 'x', expiresAt: hoursAgo(1) },
        { accountId: active.id, tokenHash: token(), csrfToken: 'x', expiresAt: hoursAgo(-24), lastSeenAt: NOW },
      ],
    });
    await db.prisma.signInLink.createMany({
      data: [
        { accountId: gone.id, tokenHash: token(), expiresAt: hoursAgo(48) },
        { accountId: gone.id, tokenHash: token(), expiresAt: hoursAgo(25), usedAt: hoursAgo(26) },
        // Expired within the day: kept, so a late click still reads "expired".
        { accountId: gone.id, tokenHash: token(), expiresAt: hoursAgo(2) },
        { accountId: active.id, tokenHash: token(), expiresAt: hoursAgo(-1) },
      ],
    });
    const delivery = (status: 'delivered' | 'failed' | 'blocked' | 'pending' | 'waiting', daysOld: number) => ({
      id: randomUUID(),
      accountId: gone.id,
      jobId: randomUUID(),
      url: 'https://example.com/hook',
      status,
      createdAt: hoursAgo(24 * daysOld),
    });
    await db.prisma.webhookDelivery.createMany({
      data: [
        delivery('delivered', 40),
        delivery('failed', 31),
        delivery('blocked', 35),
        delivery('pending', 40),
        delivery('waiting', 45),
        delivery('delivered', 29),
      ],
    });
    const failedJob = (daysOld: number) => ({
      jobId: randomUUID(),
      accountId: gone.id,
      model: 'procedural',
      reason: 'Image generation failed: HTTP 500',
      request: { prompt: 'p' },
      createdAt: hoursAgo(24 * daysOld),
      failedAt: hoursAgo(24 * daysOld),
    });
    await db.prisma.failedJob.createMany({ data: [failedJob(31), failedJob(29)] });

    // Uploads: made a day and a half ago (expired) and an hour ago (live), each with its file.
    const files = mkdtempSync(join(tmpdir(), 'housekeeping-files-'));
    const storage = await createStorage({ kind: 'local', root: files, publicBaseUrl: 'http://localhost' });
    let clock = hoursAgo(36);
    const uploads = createUploadService({
      uploads: createUploadRepository(db.prisma),
      images: createImageRepository(db.prisma, db.sql),
      storage,
      sanitize: sanitizeImageInput,
      budgetBytes: 1024 * 1024,
      ttlHours: 24,
      now: () => clock,
      newId: randomUUID,
    });
    const png = (colour: string) =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: colour } })
        .png()
        .toBuffer();
    const old = (await uploads.upload(gone.id, await png('#ff0000'))).upload;
    clock = hoursAgo(1);
    const recent = (await uploads.upload(gone.id, await png('#00ff00'))).upload;
    const keyOf = async (id: string) => (await db.prisma.upload.findUniqueOrThrow({ where: { id } })).storageKey;
    const [oldKey, recentKey] = [await keyOf(old.id), await keyOf(recent.id)];
    expect(oldKey).toMatch(new RegExp(`^uploads/${gone.id}/[0-9a-f]{64}\\.png$`));

    const infra = {
      uploads,
      failedJobs: createFailedJobRepository(db.prisma, { retentionDays: 30, now: () => NOW }),
      dashboardSessions: createDashboardSessionRepository(db.prisma),
      signInLinks: createSignInLinkRepository(db.prisma),
      webhookStore: createWebhookRepository(db.prisma, { logDays: 30, now: () => NOW }),
    };
    const { logger, lines } = captureLogger();
    const housekeeping = startHousekeeping({ tasks: housekeepingTasks(infra), logger, now: () => NOW });
    try {
      expect(await housekeeping.runNow()).toEqual({
        'expired dashboard sessions': 2,
        'stale sign-in links': 2,
        'webhook log past its window': 3,
        'failed jobs past FAILED_JOB_DAYS': 1,
        'expired uploads': 1,
      });
      expect(await housekeeping.runNow()).toEqual({
        'expired dashboard sessions': 0,
        'stale sign-in links': 0,
        'webhook log past its window': 0,
        'failed jobs past FAILED_JOB_DAYS': 0,
        'expired uploads': 0,
      });
    } finally {
      await housekeeping.close();
    }
    expect((await db.prisma.upload.findMany({ select: { id: true } })).map((u) => u.id)).toEqual([recent.id]);
    expect([await storage.exists(oldKey), await storage.exists(recentKey)]).toEqual([false, true]);
    rmSync(files, { recursive: true, force: true });

    const sessions = await db.prisma.dashboardSession.findMany({ select: { accountId: true } });
    expect(sessions).toEqual([{ accountId: active.id }]);
    const links = await db.prisma.signInLink.findMany({ select: { expiresAt: true }, orderBy: { expiresAt: 'asc' } });
    expect(links.map((l) => l.expiresAt)).toEqual([hoursAgo(2), hoursAgo(-1)]);
    const deliveries = await db.prisma.webhookDelivery.findMany({ select: { status: true }, orderBy: { createdAt: 'asc' } });
    expect(deliveries.map((d) => d.status)).toEqual(['waiting', 'pending', 'delivered']);
    expect(lines.filter((l) => l.message === 'housekeeping deleted rows')).toHaveLength(1);
  });
});

describe('a housekeeping task that fails', () => {
  it('is logged without stopping the others, and the next pass runs it again', async () => {
    const { logger, lines } = captureLogger();
    let calls = 0;
    const flaky: HousekeepingTask = {
      name: 'flaky',
      run: async () => {
        if (++calls === 1) throw new Error('connection refused');
        return 4;
      },
    };
    const steady: HousekeepingTask = { name: 'steady', run: async () => 1 };
    const housekeeping = startHousekeeping({ tasks: [flaky, steady], logger });
    try {
      expect(await housekeeping.runNow()).toEqual({ steady: 1 });
      expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', task: 'flaky', error: 'connection refused' }));
      expect(await housekeeping.runNow()).toEqual({ flaky: 4, steady: 1 });
    } finally {
      await housekeeping.close();
    }
  });

  it('runs by itself on its interval, one pass at a time, and not after close()', async () => {
    const { logger } = captureLogger();
    let passes = 0;
    let inFlight = 0;
    let overlapped = false;
    const slow: HousekeepingTask = {
      name: 'slow',
      run: async () => {
        overlapped ||= inFlight > 0;
        inFlight++;
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        passes++;
        return 0;
      },
    };
    const housekeeping = startHousekeeping({ tasks: [slow], logger, intervalMs: 20 });
    for (let i = 0; i < 200 && passes < 3; i++) await new Promise((r) => setTimeout(r, 10));
    await housekeeping.close();
    const afterClose = passes;
    expect(afterClose).toBeGreaterThanOrEqual(3);
    expect(overlapped).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(passes).toBe(afterClose);
  });
});
