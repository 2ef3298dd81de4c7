/**
 * Plain parameterised SQL on the same connections Prisma uses (the PostgreSQL pool, or the PGlite
 * instance), for the few statements on hot request paths. Through Prisma one indexed SELECT cost
 * about three times the CPU of the same SELECT through pg (bench/: "Database paths").
 *
 * Both drivers return int4 as number, bool as boolean and timestamptz as Date. Prisma's DateTime
 * columns are `timestamp(3)` without a zone holding UTC, so statements read them with
 * `AT TIME ZONE 'UTC'` and are given instants as ISO strings, never relying on the server's zone.
 */
import type pg from 'pg';
import { realmSafeArg, type PGlite } from './pglite';

export interface SqlClient {
  query<Row>(text: string, params: readonly unknown[]): Promise<Row[]>;
  /** A statement without a result set; how many rows it touched. */
  execute(text: string, params: readonly unknown[]): Promise<number>;
}

export const pgSqlClient = (pool: pg.Pool): SqlClient => ({
  async query<Row>(text: string, params: readonly unknown[]) {
    return (await pool.query(text, params as unknown[])).rows as Row[];
  },
  async execute(text, params) {
    return (await pool.query(text, params as unknown[])).rowCount ?? 0;
  },
});

export const pgliteSqlClient = (pglite: PGlite): SqlClient => ({
  async query<Row>(text: string, params: readonly unknown[]) {
    return (await pglite.query<Row>(text, params.map(realmSafeArg))).rows;
  },
  async execute(text, params) {
    return (await pglite.query(text, params.map(realmSafeArg))).affectedRows ?? 0;
  },
});
