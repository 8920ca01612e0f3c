import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { HeldConnection } from '../../src/db/pipelined-transaction';
import { runPrepared, type PreparedStatement } from '../../src/db/prepared';

describe('prepared statements', () => {
  let dataSource: DataSource;
  const table = `prepared_${process.pid}`;
  const insert: PreparedStatement = { name: `test_prepared_insert_${process.pid}`, text: `INSERT INTO ${table} (name, n) VALUES ($1, $2) RETURNING name, n` };
  /** The statements prepared on the connection that runs this. */
  const preparedHere = `SELECT name FROM pg_prepared_statements WHERE name = '${insert.name}'`;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
    await dataSource.query(`CREATE TABLE ${table} (name text PRIMARY KEY, n int)`);
  });
  afterAll(async () => {
    await dataSource?.query(`DROP TABLE IF EXISTS ${table}`);
    await dataSource?.destroy();
  });

  it('run in the caller’s transaction, prepared once on its connection, with parameters converted as in any query', async () => {
    const held = new HeldConnection(dataSource);
    const answers = await held.run(async (manager) => [
      await runPrepared(manager, insert, ['a', 1]),
      await runPrepared(manager, insert, ['b', '2']),
      await manager.query(preparedHere),
    ]);
    expect(answers).toEqual([[{ name: 'a', n: 1 }], [{ name: 'b', n: 2 }], [{ name: insert.name }]]);
    // The next transaction on the same connection finds it prepared; a rolled-back transaction keeps nothing of its rows.
    await expect(
      held.run(async (manager) => {
        expect(await manager.query(preparedHere)).toEqual([{ name: insert.name }]);
        await runPrepared(manager, insert, ['c', 3]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await dataSource.query(`SELECT name FROM ${table} ORDER BY name`)).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  it('run on a connection of the pool when the manager has none, and fail with Postgres’s error', async () => {
    expect(await runPrepared(dataSource.manager, insert, ['d', 4])).toEqual([{ name: 'd', n: 4 }]);
    await expect(runPrepared(dataSource.manager, insert, ['d', 5])).rejects.toMatchObject({ code: '23505' });
    expect(await runPrepared(dataSource.manager, insert, ['e', 5])).toEqual([{ name: 'e', n: 5 }]);
  });

  it('sent twice at once on one connection (pipelined), are prepared once and both answered', async () => {
    const held = new HeldConnection(dataSource);
    const both = await held.run((manager) => Promise.all([runPrepared(manager, { ...insert, name: `${insert.name}_twice` }, ['f', 6]), runPrepared(manager, { ...insert, name: `${insert.name}_twice` }, ['g', 7])]));
    expect(both).toEqual([[{ name: 'f', n: 6 }], [{ name: 'g', n: 7 }]]);
  });
});
