import { createMetrics } from './metrics';
import { dependencyCheck, reportDependencyHealth, statusAnswer } from './dependency-status';

describe('dependency status', () => {
  it('reports every check ok when each answers', async () => {
    const check = dependencyCheck({ database: async () => 1, storage: async () => undefined });
    await expect(check()).resolves.toEqual({ checks: { database: 'ok', storage: 'ok' } });
  });

  it('callers that arrive while a check runs share it', async () => {
    let calls = 0;
    const check = dependencyCheck({ database: async () => void calls++ });
    const reports = await Promise.all(Array.from({ length: 50 }, () => check()));
    expect(calls).toBe(1);
    expect(new Set(reports.map((r) => r.checks.database))).toEqual(new Set(['ok']));
    await check();
    expect(calls).toBe(2);
  });

  it('names the failing and the hanging check, within the timeout, without their error texts', async () => {
    const failures: string[] = [];
    const check = dependencyCheck(
      {
        database: async () => 1,
        redis: () => new Promise(() => undefined),
        storage: async () => {
          throw new Error('NoSuchBucket at 10.0.3.7');
        },
      },
      { timeoutMs: 100, onFailure: (name) => failures.push(name) },
    );
    const started = Date.now();
    const status = await check();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(statusAnswer(status)).toEqual({ status: 200, body: { status: 'degraded', dependencies: { database: 'ok', redis: 'timeout', storage: 'failed' } } });
    expect(failures.sort()).toEqual(['redis', 'storage']);
  });

  it('promptpix_dependency_up: 1 per dependency that answered, 0 per one that did not', async () => {
    const metrics = createMetrics();
    let storageUp = true;
    const storage = async () => {
      if (!storageUp) throw new Error('down');
    };
    reportDependencyHealth(metrics, dependencyCheck({ database: async () => 1, storage }));
    expect((await metrics.scrape()).body).toContain('promptpix_dependency_up{dependency="storage"} 1');
    storageUp = false;
    const body = (await metrics.scrape()).body;
    expect(body).toContain('promptpix_dependency_up{dependency="database"} 1');
    expect(body).toContain('promptpix_dependency_up{dependency="storage"} 0');
  });
});
