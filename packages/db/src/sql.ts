/**
 * Plain parameterised SQL on the same connections Prisma uses (the PostgreSQL pool, or the PGlite
 * thread), for the few statements on hot request paths. Through Prisma one indexed SELECT cost
 * about three times the CPU of the same SELECT through pg (bench/: "Database paths").
 *
 * Both drivers return int4 as number, bool as boolean and timestamptz as Date. Prisma's DateTime
 * columns are `timestamp(3)` without a zone holding UTC, so statements read them with
 * `AT TIME ZONE 'UTC'` and are given instants as ISO strings, never relying on the server's zone.
 */
import type pg from 'pg';

export interface SqlClient {
  query<Row>(text: string, params: readonly unknown[]): Promise<Row[]>;
  /** A statement without a result set; how many rows it touched. */
  execute(text: string, params: readonly unknown[]): Promise<number>;
  /**
   * Bulk insert through COPY (PGlite only: its COPY reads an in-memory blob; pglite-connection.ts).
   * An analytics batch through COPY costs PGlite about a third of the same rows through one
   * INSERT … SELECT FROM jsonb_to_recordset.
   */
  copyRows?(table: string, columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | null>>): Promise<number>;
}

/** One CSV record: every value quoted (quotes doubled), NULL as an unquoted empty field. */
export const csvRecord = (values: ReadonlyArray<string | null>): string => values.map((v) => (v === null ? '' : `"${v.replaceAll('"', '""')}"`)).join(',');

export const pgSqlClient = (pool: pg.Pool): SqlClient => ({
  async query<Row>(text: string, params: readonly unknown[]) {
    return (await pool.query(text, params as unknown[])).rows as Row[];
  },
  async execute(text, params) {
    return (await pool.query(text, params as unknown[])).rowCount ?? 0;
  },
});

/**
 * Whether the server refused a statement (an SQLSTATE other than a connection failure or an
 * operator shutdown): the statement was rolled back, so its parts may be tried again one by one.
 * A lost connection carries no SQLSTATE (or class 08 / 57P): whether it committed is unknown.
 */
export const isStatementRefused = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57P');
};
