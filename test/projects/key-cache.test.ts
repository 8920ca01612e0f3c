import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { issueKeys, type IssuedKeys } from '../../src/projects/api-keys';
import { KeyCache } from '../../src/projects/key-cache';
import { until } from '../support/wait';

describe('the API keys an API process keeps (KeyCache)', () => {
  // Two data sources on one database, as two API processes: `here` keeps keys, `there` changes them.
  let here: DataSource;
  let there: DataSource;
  let lookups: number;

  beforeAll(async () => {
    [here, there] = await Promise.all([openDatabase(process.env.DATABASE_URL!, 2), openDatabase(process.env.DATABASE_URL!, 2)]);
    const query = here.manager.query.bind(here.manager);
    jest.spyOn(here.manager, 'query').mockImplementation((sql: string, parameters?: unknown[]) => {
      if (sql.includes('FROM api_keys')) lookups += 1;
      return query(sql, parameters);
    });
  });
  beforeEach(() => {
    lookups = 0;
  });
  afterAll(async () => {
    await here?.destroy();
    await there?.destroy();
  });

  const newProject = async (): Promise<{ projectId: string; keys: IssuedKeys }> => {
    const [{ id }]: { id: string }[] = await there.query(`INSERT INTO projects (name) VALUES ('Key cache test') RETURNING id`);
    return { projectId: id, keys: await there.transaction((manager) => issueKeys(manager, id)) };
  };
  /** Finds the key until this process keeps it: its first look-ups may run before the key-change channel listens. */
  const keep = async (cache: KeyCache, key: string) => {
    await until(
      async () => {
        const before = lookups;
        await cache.find(key);
        await cache.find(key);
        return lookups - before;
      },
      (count) => count === 0,
      'the key kept',
    );
  };
  /** Finds the key until finding it takes a look-up: the process no longer answers it from memory. */
  const lookedUpAgain = (cache: KeyCache, key: string, what: string, timeoutMs?: number) =>
    until(
      async () => {
        const before = lookups;
        await cache.find(key);
        return lookups - before;
      },
      (count) => count === 1,
      what,
      timeoutMs,
    );

  it('answers a key it found from memory, and looks up every unknown key', async () => {
    const cache = new KeyCache(here);
    const { projectId, keys } = await newProject();
    await keep(cache, keys.publicKey);

    lookups = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.find(keys.publicKey)));
    expect(answers.every((answer) => answer?.projectId === projectId && answer.kind === 'public')).toBe(true);
    expect(lookups).toBe(0);
    expect(await cache.find('pk_unknown')).toBeUndefined();
    expect(await cache.find('pk_unknown')).toBeUndefined();
    expect(lookups).toBe(2);
  });

  it("forgets kept keys when another process replaces the project's keys, disables it or deletes it", async () => {
    const cache = new KeyCache(here);
    const rotated = await newProject();
    const disabled = await newProject();
    const deleted = await newProject();
    for (const project of [rotated, disabled, deleted]) await keep(cache, project.keys.secretKey);

    const fresh = await there.transaction((manager) => issueKeys(manager, rotated.projectId));
    await there.query('UPDATE projects SET disabled = true WHERE id = $1', [disabled.projectId]);
    await there.query('DELETE FROM projects WHERE id = $1', [deleted.projectId]);

    await until(() => cache.find(rotated.keys.secretKey), (match) => match === undefined, 'the replaced key refused');
    expect(await cache.find(fresh.secretKey)).toMatchObject({ projectId: rotated.projectId, kind: 'secret' });
    expect(await cache.find(disabled.keys.secretKey)).toMatchObject({ projectId: disabled.projectId, disabled: true });
    expect(await cache.find(deleted.keys.secretKey)).toBeUndefined();
  });

  it('keeps nothing while its listening connection is lost, and listens again', async () => {
    const cache = new KeyCache(here);
    const project = await newProject();
    await keep(cache, project.keys.publicKey);

    // Every listening connection of this database goes (other suites' API processes listen again as this one does).
    await there.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN herald_keys_changed' AND datname = current_database()`,
    );
    await lookedUpAgain(cache, project.keys.publicKey, 'the kept key looked up again');
    // Nothing could announce this change while the connection was lost: the key must not answer from memory.
    await there.transaction((manager) => issueKeys(manager, project.projectId));
    expect(await cache.find(project.keys.publicKey)).toBeUndefined();

    const next = await newProject();
    await keep(cache, next.keys.publicKey);
    await there.transaction((manager) => issueKeys(manager, next.projectId));
    await until(() => cache.find(next.keys.publicKey), (match) => match === undefined, 'the replaced key refused through the new connection');
  });

  it('does not keep what a look-up found when a change was announced while it ran', async () => {
    const cache = new KeyCache(here);
    const project = await newProject();
    await keep(cache, project.keys.publicKey);
    cache.forget();
    const found = cache.find(project.keys.publicKey);
    cache.forget();
    expect(await found).toMatchObject({ projectId: project.projectId });
    lookups = 0;
    await cache.find(project.keys.publicKey);
    expect(lookups).toBe(1);
  });

  it('keeps nothing while its probes do not come back (a pooler without LISTEN, a listener on another server)', async () => {
    const cache = new KeyCache(here);
    const project = await newProject();
    await keep(cache, project.keys.publicKey);

    // The probes this process sends through its pool stop reaching its listening connection.
    const query = here.query.bind(here);
    const blocked = jest.spyOn(here, 'query').mockImplementation((sql: string, parameters?: unknown[]) =>
      sql.includes('pg_notify') ? Promise.resolve([]) : query(sql, parameters),
    );
    try {
      // Well before a kept key's own 10 s are up.
      await lookedUpAgain(cache, project.keys.publicKey, 'the kept key looked up again once the probes stopped', 6_000);
    } finally {
      blocked.mockRestore();
    }
    await keep(cache, project.keys.publicKey);
  });
});
