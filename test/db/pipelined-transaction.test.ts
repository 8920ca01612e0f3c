import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { HeldConnection, pooledTransactions } from '../../src/db/pipelined-transaction';

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
});
