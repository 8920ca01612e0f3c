import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import type { Pool } from 'pg';
import { HeldConnection, pooledTransactions, rolledBackByPostgres } from '../../src/db/pipelined-transaction';

describe('pipelined transactions (START TRANSACTION and COMMIT sent beside the statements)', () => {
  let dataSource: DataSource;
  const table = `pipelined_${process.pid}`;
  const rows = async () => (await dataSource.query(`SELECT name FROM ${table} ORDER BY name`)).map((row: { name: string }) => row.name);

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
    await dataSource.query(`CREATE TABLE ${table} (name text PRIMARY KEY)`);
  });
  beforeEach(() => dataSource.query(`DELETE FROM ${table}`));
  afterAll(async () => {
    await dataSource?.query(`DROP TABLE IF EXISTS ${table}`);
    await dataSource?.destroy();
  });

  const transactions = () => pooledTransactions(dataSource);

  it('commit the work and the last statement together, answering its rows', async () => {
    const answer = await transactions()(async (manager, commitWith) => {
      await manager.query(`INSERT INTO ${table} (name) VALUES ('first')`);
      return commitWith(`INSERT INTO ${table} (name) VALUES ($1) RETURNING name`, ['last']);
    });
    expect(answer).toEqual([{ name: 'last' }]);
    expect(await rows()).toEqual(['first', 'last']);
  });

  it('roll the first statement back when the last one fails, and throw its Postgres error', async () => {
    await dataSource.query(`INSERT INTO ${table} (name) VALUES ('taken')`);
    const failure = transactions()(async (manager, commitWith) => {
      await manager.query(`INSERT INTO ${table} (name) VALUES ('first')`);
      return commitWith(`INSERT INTO ${table} (name) VALUES ($1)`, ['taken']);
    });
    await expect(failure).rejects.toMatchObject({ code: '23505' });
    expect(await rows()).toEqual(['taken']);
  });

  it('roll back work that throws, and commit work that never calls commitWith', async () => {
    await expect(
      transactions()(async (manager) => {
        await manager.query(`INSERT INTO ${table} (name) VALUES ('thrown')`);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await transactions()((manager) => manager.query(`INSERT INTO ${table} (name) VALUES ('plain')`));
    expect(await rows()).toEqual(['plain']);
  });

  it('keep a TypeORM transaction the work opens inside theirs', async () => {
    await expect(
      transactions()(async (manager) => {
        await manager.transaction((inner) => inner.query(`INSERT INTO ${table} (name) VALUES ('nested')`));
        throw new Error('after the nested one');
      }),
    ).rejects.toThrow('after the nested one');
    expect(await rows()).toEqual([]);
  });

  it('on a held connection, run one after another on one backend, and take a new one once it is lost', async () => {
    const held = new HeldConnection(dataSource);
    const backend = (name: string) =>
      held.run(async (manager, commitWith) => {
        const [{ pid, txid }] = await manager.query('SELECT pg_backend_pid() AS pid, txid_current()::text AS txid');
        await new Promise((resolve) => setTimeout(resolve, 20));
        await commitWith(`INSERT INTO ${table} (name) VALUES ($1)`, [name]);
        return { pid: pid as number, txid: txid as string };
      });
    const runs = await Promise.all(['a', 'b', 'c'].map(backend));
    const pids = runs.map((run) => run.pid);
    expect(new Set(pids).size).toBe(1);
    // Asked for at once, they still ran one after another: three transactions, not one shared.
    expect(new Set(runs.map((run) => run.txid)).size).toBe(3);
    await dataSource.query('SELECT pg_terminate_backend($1)', [pids[0]]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const next = await backend('d');
    expect(next.pid).not.toBe(pids[0]);
    expect(await rows()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('fail before sending anything when pg cannot convert a parameter of the last statement, committing nothing', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const failure = transactions()(async (manager, commitWith) => {
      await manager.query(`INSERT INTO ${table} (name) VALUES ('first')`);
      return commitWith(`INSERT INTO ${table} (name) VALUES ($1)`, [circular]);
    });
    await expect(failure).rejects.toThrow(/circular/i);
    expect(await rows()).toEqual([]);
  });

  it('mark a failure that Postgres answered with a rollback as rolled back, whatever its SQLSTATE', async () => {
    const failure = transactions()(async (manager, commitWith) => {
      await manager.query(`INSERT INTO ${table} (name) VALUES ('first')`);
      return commitWith(`SELECT * FROM missing_${process.pid}`, []);
    });
    const err = await failure.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(err).toMatchObject({ code: '42P01' });
    expect(rolledBackByPostgres(err)).toBe(true);
    expect(rolledBackByPostgres(new Error('anything else'))).toBe(false);
    expect(await rows()).toEqual([]);
  });

  const pool = () => (dataSource.driver as unknown as { master: Pool }).master;
  const inUse = () => pool().totalCount - pool().idleCount;

  it('on a held connection, never reuse one the data source released behind its back', async () => {
    const held = new HeldConnection(dataSource);
    await held.run((manager) => manager.query(`INSERT INTO ${table} (name) VALUES ('before')`));
    // What the data source's destroy does to every runner: the held connection goes back to the pool...
    const runner = (held as unknown as { held: { runner: { release(): Promise<void> } } }).held.runner;
    await runner.release();
    // ...where another caller takes it and opens a transaction on it.
    const other = dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    await other.query(`INSERT INTO ${table} (name) VALUES ('other, rolled back')`);
    try {
      await held.run((manager, commitWith) => commitWith(`INSERT INTO ${table} (name) VALUES ($1)`, ['held']));
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    expect(await rows()).toEqual(['before', 'held']);
  });

  it('on a held connection, give it back to the pool once unused for a while, and take one again for the next transaction', async () => {
    const held = new HeldConnection(dataSource, 50);
    const before = inUse();
    await held.run((manager) => manager.query(`INSERT INTO ${table} (name) VALUES ('a')`));
    expect(inUse()).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inUse()).toBe(before);
    await held.run((manager) => manager.query(`INSERT INTO ${table} (name) VALUES ('b')`));
    expect(await rows()).toEqual(['a', 'b']);
  });

  it("run on the pool's connections in pg's pipeline mode (statements asked for at once are sent at once), with TCP keepalive", () => {
    // Without pipeline mode, pg queues such statements itself, a use deprecated for its next major version.
    expect((pool() as unknown as { options: { pipeline?: boolean; keepAlive?: boolean } }).options).toMatchObject({ pipeline: true, keepAlive: true });
  });
});
