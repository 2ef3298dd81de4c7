/**
 * With EMBEDDED_DATABASE_THREAD=on the embedded shape's database (PGlite) runs on a thread of its
 * own: a long statement there must not hold up the HTTP server. With PGlite on the server's thread
 * (the default), every request waits until the statement has finished.
 */
import { startTestService, type TestService } from './testing';

let service: TestService;

beforeAll(async () => {
  service = await startTestService('embedded', { EMBEDDED_DATABASE_THREAD: 'on' }, { worker: false });
});

afterAll(async () => {
  await service?.stop();
});

it('answers HTTP requests while the database thread is busy with a statement', async () => {
  let statementDone = false;
  // Holds the database thread for a few seconds (PostgreSQL's own sleep, inside PGlite).
  const statement = service.infra.db.sql.query<{ slept: string }>('SELECT pg_sleep(3)::text AS slept', []).finally(() => {
    statementDone = true;
  });

  const health = await fetch(`${service.baseUrl}/api/health`);
  expect(health.status).toBe(200);
  expect(statementDone).toBe(false);

  expect(await statement).toEqual([{ slept: '' }]);
});

it('serves the database to the app as before: Prisma reads, raw SQL and errors with their PostgreSQL code', async () => {
  const account = await service.createAccount();
  const stored = await service.infra.db.prisma.account.findUnique({ where: { handle: account.handle } });
  expect(stored?.handle).toBe(account.handle);

  const rows = await service.infra.db.sql.query<{ handle: string; created: Date }>('SELECT handle, "createdAt" AS created FROM "Account" WHERE handle = $1', [
    account.handle,
  ]);
  expect(rows).toEqual([{ handle: account.handle, created: expect.any(Object) }]);

  await expect(service.infra.db.sql.query('SELECT * FROM "NoSuchTable"', [])).rejects.toMatchObject({ code: '42P01' });
  // A unique violation through Prisma keeps its Prisma error code (P2002), mapped from the thread's driver error.
  await expect(service.infra.db.prisma.account.create({ data: { handle: account.handle, email: 'other@example.com' } })).rejects.toMatchObject({
    code: 'P2002',
  });
});

it('runs interactive transactions on the thread, and rolls them back on an error', async () => {
  const account = await service.createAccount();
  await expect(
    service.infra.db.prisma.$transaction(async (tx) => {
      await tx.account.update({ where: { handle: account.handle }, data: { email: 'changed@example.com' } });
      throw new Error('abandon');
    }),
  ).rejects.toThrow('abandon');
  const after = await service.infra.db.prisma.account.findUnique({ where: { handle: account.handle } });
  expect(after?.email).toBe(`${account.handle}@example.com`);
});
