import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import * as pg from 'pg';
import type { PoolClient, QueryResult } from 'pg';

/**
 * A statement that each connection parses and plans once, under its name, instead of on every
 * run: for the few statements run hundreds of times a second (a tracked event's contact upsert
 * and event insert, a workflow execution's start and email checks, a delivery's load), whose
 * parsing and planning cost Postgres more than running them. Postgres may then keep a generic
 * plan for it: a statement whose generic plan runs slower than its custom ones (the claims and
 * marks of many emails by id array) is better left unprepared. Made by `prepared`, whose name is
 * the text's digest: pg refuses a name already used for another text before sending anything,
 * which in a pipelined transaction would still send the COMMIT queued behind it.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** The prepared statement of a text that is the same on every run (parameters only as `$n`). */
export function prepared(text: string): PreparedStatement {
  return { name: `herald_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

/**
 * pg's own conversion of a parameter to what it sends (a string, a buffer or null). Converted
 * first, a parameter it cannot convert fails before anything is sent (left to pg, it would fail
 * the statement while a pipelined transaction's COMMIT queued behind it still went out).
 */
export const { prepareValue } = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;

/**
 * Errors after which a connection's prepared statement is no longer usable: it is gone (26000,
 * a pooler that moved the session) or its plan's result type changed (0A000, a migration altered
 * a table it returns while this process ran). pg still records it as prepared, and Postgres may
 * still hold it under its name: the connection prepares it again under a new name.
 */
const STALE = new Set(['26000', '0A000']);

/** Per connection (pg's client), the statements prepared again after going stale, and how often. */
const renamed = new WeakMap<object, Map<string, number>>();

/** The name a statement has on a client's connection. */
function nameOn(client: PoolClient, statement: PreparedStatement): string {
  const times = renamed.get(client)?.get(statement.name);
  return times === undefined ? statement.name : `${statement.name}_${times}`;
}

/** Runs a prepared statement on a client with values already converted (prepareValue); sent at once, in pipeline order. */
export async function queryPrepared(client: PoolClient, statement: PreparedStatement, values: unknown[]): Promise<QueryResult> {
  try {
    return await client.query({ name: nameOn(client, statement), text: statement.text, values });
  } catch (err) {
    if (STALE.has((err as { code?: string }).code ?? '')) {
      const times = renamed.get(client) ?? new Map<string, number>();
      renamed.set(client, times.set(statement.name, (times.get(statement.name) ?? 0) + 1));
    }
    throw err;
  }
}

/** Runs a prepared statement on the manager's connection (its transaction's), or on one from the pool; answers its rows. */
export async function runPrepared(manager: EntityManager, statement: PreparedStatement, parameters: unknown[]): Promise<unknown[]> {
  // A released runner still answers its old connection, which the pool may have given to another caller.
  if (manager.queryRunner?.isReleased) throw new Error('the query runner was released');
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PoolClient;
    return (await queryPrepared(client, statement, parameters.map(prepareValue))).rows;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}
