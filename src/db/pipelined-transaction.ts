import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { PoolClient, QueryResult } from 'pg';

/** Runs a statement and answers its rows, as `EntityManager.query` does for a SELECT or an INSERT ... RETURNING. */
export type RunQuery = (sql: string, parameters: unknown[]) => Promise<unknown[]>;

/** Work in a pipelined transaction: its statements go through `manager`, its last one may go through `commitWith`. */
export type TransactionWork<T> = (manager: EntityManager, commitWith: RunQuery) => Promise<T>;

/** Something that runs pipelined transactions: a connection from the pool for each, or one held connection. */
export type Transactions = <T>(work: TransactionWork<T>) => Promise<T>;

/** The query runner's own record of an open transaction, which TypeORM keeps on the runner. */
interface TransactionFlags {
  isTransactionActive: boolean;
  transactionDepth: number;
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
 * was committed. When the COMMIT itself fails, its error is thrown and the outcome is unknown,
 * as with any COMMIT. Work that does not call `commitWith` is committed after it returns; work
 * that throws is rolled back. The runner is marked as in a transaction meanwhile, so a
 * transaction the work opens through TypeORM nests in this one (a savepoint).
 */
async function runPipelined<T>(runner: QueryRunner, work: TransactionWork<T>): Promise<T> {
  const client = (await runner.connect()) as PoolClient;
  // The pg client sends queued queries in order, each once the one before it was answered.
  const begun = client.query('START TRANSACTION');
  begun.catch(() => undefined);
  setOpen(runner, true);
  let ended = false;
  const commitWith: RunQuery = async (sql, parameters) => {
    if (ended) throw new Error('the transaction already ended');
    ended = true;
    const statement = client.query(sql, parameters);
    const commit = client.query('COMMIT');
    const [started, done, committed] = await Promise.allSettled([begun, statement, commit]);
    setOpen(runner, false);
    if (started.status === 'rejected') throw started.reason;
    if (done.status === 'rejected') throw done.reason;
    if (committed.status === 'rejected') throw committed.reason;
    const command = (committed.value as QueryResult).command;
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

/**
 * Pipelined transactions one after another on one connection kept from the pool, for a writer
 * that commits in a loop: taking a connection from the pool costs such a transaction another
 * turn of the event loop. A transaction asked for while one runs waits for it. After a failed
 * transaction, or once the connection reports an error or its end, the connection is given
 * back and the next transaction takes a new one. The data source's `destroy` gives it back too.
 */
export class HeldConnection {
  private held: { runner: QueryRunner; client: PoolClient; lost: () => void } | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  readonly run: Transactions = (work) => {
    const turn = this.queue.then(() => this.runOne(work));
    this.queue = turn.catch(() => undefined);
    return turn;
  };

  private async runOne<T>(work: TransactionWork<T>): Promise<T> {
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
