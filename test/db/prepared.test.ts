import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { HeldConnection } from '../../src/db/pipelined-transaction';
import { prepared, runPrepared } from '../../src/db/prepared';

describe('prepared statements', () => {
  let dataSource: DataSource;
  const table = `prepared_${process.pid}`;
  const insert = prepared(`INSERT INTO ${table} (name, n) VALUES ($1, $2) RETURNING name, n`);
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
    const twice = prepared(`${insert.text} -- twice`);
    const both = await held.run((manager) => Promise.all([runPrepared(manager, twice, ['f', 6]), runPrepared(manager, twice, ['g', 7])]));
    expect(both).toEqual([[{ name: 'f', n: 6 }], [{ name: 'g', n: 7 }]]);
  });

  it('are named by their text: the same text the same name, another text another', () => {
    expect(prepared(insert.text).name).toBe(insert.name);
    expect(prepared(`${insert.text} `).name).not.toBe(insert.name);
    expect(insert.name).toMatch(/^herald_[0-9a-f]{24}$/);
  });

  it('are prepared again on a connection where a change of the table made them stale, and refuse a released runner', async () => {
    const other = `prepared_stale_${process.pid}`;
    await dataSource.query(`CREATE TABLE ${other} (name text PRIMARY KEY, n int)`);
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      const select = prepared(`SELECT name, n FROM ${other} WHERE name = $1`);
      await dataSource.query(`INSERT INTO ${other} (name, n) VALUES ('a', 1)`);
      expect(await runPrepared(runner.manager, select, ['a'])).toEqual([{ name: 'a', n: 1 }]);
      await dataSource.query(`ALTER TABLE ${other} ALTER COLUMN n TYPE text`);
      await expect(runPrepared(runner.manager, select, ['a'])).rejects.toMatchObject({ code: '0A000' });
      expect(await runPrepared(runner.manager, select, ['a'])).toEqual([{ name: 'a', n: '1' }]);
      expect(await runPrepared(runner.manager, select, ['a'])).toEqual([{ name: 'a', n: '1' }]);
    } finally {
      await runner.release();
      await dataSource.query(`DROP TABLE ${other}`);
    }
    await expect(runPrepared(runner.manager, insert, ['h', 8])).rejects.toThrow('released');
    expect(await dataSource.query(`SELECT name FROM ${table} WHERE name = 'h'`)).toEqual([]);
  });
});
