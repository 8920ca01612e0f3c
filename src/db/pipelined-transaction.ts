import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { PoolClient, QueryResult } from 'pg';
import { prepareValue, queryPrepared, runPrepared, type PreparedStatement } from './prepared';

/** Runs a statement (its text, or a statement prepared once per connection) and answers its rows, as `EntityManager.query` does for a SELECT or an INSERT ... RETURNING. */
export type RunQuery = (sql: string | PreparedStatement, parameters: unknown[]) => Promise<unknown[]>;

/** RunQuery on a manager (its transaction's connection, or the pool's): a statement that waits for its own answer. */
export function queryIn(manager: EntityManager): RunQuery {
  return (sql, parameters) => (typeof sql === 'string' ? manager.query(sql, parameters) : runPrepared(manager, sql, parameters));
}

/** Work in a pipelined transaction: its statements go through `manager`, its last one may go through `commitWith`. */
export type TransactionWork<T> = (manager: EntityManager, commitWith: RunQuery) => Promise<T>;

/** Something that runs pipelined transactions: a connection from the pool for each, or one held connection. */
export type Transactions = <T>(work: TransactionWork<T>) => Promise<T>;

/** The query runner's own record of an open transaction, which TypeORM keeps on the runner. */
interface TransactionFlags {
  isTransactionActive: boolean;
  transactionDepth: number;
}

/** Errors of transactions that Postgres answered with a rollback: nothing of them was committed. */
const rolledBackErrors = new WeakSet<object>();

/** Whether the error ended a pipelined transaction that Postgres certainly rolled back. */
export function rolledBackByPostgres(err: unknown): boolean {
  return typeof err === 'object' && err !== null && rolledBackErrors.has(err);
}

/**
 * Whether a transaction's failure certainly rolled it back, wherever it happened: Postgres
 * answered its commit with a rollback, or refused a statement or the commit with a data
 * exception (22), an integrity violation (23) or a rollback (40, but for 40003, statement
 * completion unknown). A lost connection or any other failure leaves the outcome unknown.
 */
export function certainlyRolledBack(err: unknown): boolean {
  if (rolledBackByPostgres(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|40)[0-9A-Z]{3}$/.test(code) && code !== '40003';
}

const setOpen = (runner: QueryRunner, open: boolean) => {
  const flags = runner as unknown as TransactionFlags;
  [flags.isTransactionActive, flags.transactionDepth] = [open, open ? 1 : 0];
};

/**
 * Runs work in one transaction on the runner's connection, with its commands sent beside its
 * statements: START TRANSACTION is queued before the work's first statement, and `commitWith`
 * sends the work's last statement and COMMIT together, so neither waits for an answer of its
 * own. Each answer a transaction waits for costs it a turn of this process's event loop and of
 * Postgres's scheduling, which on a busy machine is most of a short statement's time.
 *
 * `commitWith` answers the statement's rows once the transaction committed. When the statement
 * fails, Postgres answers the COMMIT with a rollback, and the statement's error is thrown: nothing
 * was committed, whatever the error (`rolledBackByPostgres` tells so). When the COMMIT itself
 * fails, its error is thrown and the outcome is unknown, as with any COMMIT. Work that does not
 * call `commitWith` is committed after it returns; work that throws is rolled back. The runner is marked as in a transaction meanwhile, so a
 * transaction the work opens through TypeORM nests in this one (a savepoint).
 */
async function runPipelined<T>(runner: QueryRunner, work: TransactionWork<T>): Promise<T> {
  // A released runner still answers its old connection, which the pool may have given to another caller.
  if (runner.isReleased) throw new Error('the query runner was released');
  const client = (await runner.connect()) as PoolClient;
  // The pool's clients are in pg's pipeline mode: each query is sent as soon as it is asked for,
  // and Postgres runs them in order.
  const begun = client.query('START TRANSACTION');
  begun.catch(() => undefined);
  setOpen(runner, true);
  let ended = false;
  const commitWith: RunQuery = async (sql, parameters) => {
    if (ended) throw new Error('the transaction already ended');
    const values = parameters.map(prepareValue);
    ended = true;
    const statement = typeof sql === 'string' ? client.query(sql, values) : queryPrepared(client, sql, values);
    const commit = client.query('COMMIT');
    const [started, done, committed] = await Promise.allSettled([begun, statement, commit]);
    setOpen(runner, false);
    if (started.status === 'rejected') throw started.reason;
    const command = committed.status === 'fulfilled' ? (committed.value as QueryResult).command : undefined;
    if (done.status === 'rejected') {
      if (command === 'ROLLBACK' && typeof done.reason === 'object' && done.reason !== null) rolledBackErrors.add(done.reason);
      throw done.reason;
    }
    if (committed.status === 'rejected') throw committed.reason;
    if (command !== 'COMMIT') throw new Error(`the transaction ended with ${command}`);
    return done.value.rows;
  };
  try {
    const value = await work(runner.manager, commitWith);
    if (!ended) {
      ended = true;
      await begun;
      await runner.commitTransaction();
    }
    return value;
  } catch (err) {
    if (!ended) {
      ended = true;
      await runner.rollbackTransaction().catch(() => undefined);
    }
    throw err;
  } finally {
    setOpen(runner, false);
  }
}

/** Pipelined transactions, each on a connection taken from the pool for it. */
export function pooledTransactions(dataSource: DataSource): Transactions {
  return async (work) => {
    const runner = dataSource.createQueryRunner();
    try {
      return await runPipelined(runner, work);
    } finally {
      await runner.release();
    }
  };
}

/** How long a held connection may sit unused before it goes back to the pool. */
const HELD_IDLE_MS = 10_000;

/**
 * Pipelined transactions one after another on one connection kept from the pool, for a writer
 * that commits in a loop: taking a connection from the pool costs such a transaction another
 * turn of the event loop. A transaction asked for while one runs waits for it. The connection is
 * given back after a failed transaction, once it reports an error or its end, or after
 * `idleMs` without a transaction, and the next transaction takes a new one. A connection the
 * data source released meanwhile (its `destroy`) counts as given back.
 */
export class HeldConnection {
  private held: { runner: QueryRunner; client: PoolClient; lost: () => void } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private running = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly idleMs = HELD_IDLE_MS,
  ) {}

  readonly run: Transactions = (work) => {
    this.running++;
    clearTimeout(this.idle);
    const turn = this.queue.then(() => this.runOne(work));
    this.queue = turn
      .catch(() => undefined)
      .finally(() => {
        if (--this.running > 0) return;
        this.idle = setTimeout(() => void this.drop(), this.idleMs);
        this.idle.unref();
      });
    return turn;
  };

  private async runOne<T>(work: TransactionWork<T>): Promise<T> {
    if (this.held?.runner.isReleased) await this.drop();
    const runner = this.held?.runner ?? (await this.hold());
    try {
      return await runPipelined(runner, work);
    } catch (err) {
      await this.drop();
      throw err;
    }
  }

  private async hold(): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    const lost = () => void this.drop();
    client.on('error', lost);
    client.on('end', lost);
    this.held = { runner, client, lost };
    return runner;
  }

  /** Gives the held connection back to the pool. */
  private async drop(): Promise<void> {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    held.client.off('error', held.lost);
    held.client.off('end', held.lost);
    if (!held.runner.isReleased) await held.runner.release().catch(() => undefined);
  }
}
