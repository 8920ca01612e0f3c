import type { EntityManager } from 'typeorm';
import * as pg from 'pg';
import type { PoolClient } from 'pg';

/**
 * A statement that each connection parses and plans once, under its name, instead of on every
 * run: for the few statements run hundreds of times a second (the tracked event's contact upsert
 * and event insert), whose planning costs Postgres as much as running them. Its text must be
 * the same on every run; Postgres may then keep a generic plan for it.
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * pg's own conversion of a parameter to what it sends (a string, a buffer or null). Converted
 * first, a parameter it cannot convert fails before anything is sent (left to pg, it would fail
 * the statement while a pipelined transaction's COMMIT queued behind it still went out).
 */
export const { prepareValue } = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;

/** Runs a prepared statement on the manager's connection (its transaction's), or on one from the pool; answers its rows. */
export async function runPrepared(manager: EntityManager, statement: PreparedStatement, parameters: unknown[]): Promise<unknown[]> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PoolClient;
    const result = await client.query({ name: statement.name, text: statement.text, values: parameters.map(prepareValue) });
    return result.rows;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}
