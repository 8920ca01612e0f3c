import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TrackWriter } from '../../src/events/track-writer';
import { createProject } from '../automations/fixtures';

describe('a track group whose last insert Postgres refuses (TrackWriter)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
  });
  afterAll(() => dataSource?.destroy());

  it("answers the refused request with its error and stores the others of its group, another project's included", async () => {
    const one = await createProject(dataSource);
    const other = await createProject(dataSource);
    const writer = new TrackWriter(new ContactsService(dataSource, new EventDispatcher()));

    // The first request is written alone; the three after it share one group, whose event insert fails on the lone surrogate (jsonb refuses it).
    const results = await Promise.allSettled([
      writer.track(one.projectId, { email: 'first@example.test', event: 'first' }),
      writer.track(one.projectId, { email: 'bad@example.test', event: 'signed\ud800up' }),
      writer.track(one.projectId, { email: 'good@example.test', event: 'signed_up' }),
      writer.track(other.projectId, { email: 'other@example.test', event: 'signed_up' }),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const names = async (projectId: string) =>
      ((await dataSource.query('SELECT name FROM events WHERE project_id = $1 ORDER BY name', [projectId])) as { name: string }[]).map((row) => row.name);
    expect(await names(one.projectId)).toEqual(['first', 'signed_up']);
    expect(await names(other.projectId)).toEqual(['signed_up']);
    const emails: { email: string }[] = await dataSource.query('SELECT email FROM contacts WHERE project_id = $1 ORDER BY email', [one.projectId]);
    expect(emails.map((row) => row.email)).toEqual(['first@example.test', 'good@example.test']);
  });

  it('retries a group request by request when Postgres rolled it back with an error of any class', async () => {
    const { projectId } = await createProject(dataSource);
    const writer = new TrackWriter(new ContactsService(dataSource, new EventDispatcher()));
    // A refusal whose SQLSTATE (P0001, raise_exception) tells nothing of the transaction's outcome:
    // only Postgres's answer to the COMMIT, a rollback, says that nothing was stored.
    const refuse = `refuse_${process.pid}`;
    await dataSource.query(
      `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.project_id = '${projectId}' AND NEW.name = 'refused' THEN RAISE EXCEPTION 'refused by the test'; END IF;
         RETURN NEW;
       END $$`,
    );
    await dataSource.query(`CREATE TRIGGER ${refuse} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
    try {
      const results = await Promise.allSettled(
        ['first', 'kept', 'refused', 'also_kept'].map((event, i) => writer.track(projectId, { email: `p${i}@example.test`, event })),
      );

      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'P0001' });
      const rows: { name: string }[] = await dataSource.query('SELECT name FROM events WHERE project_id = $1 ORDER BY name', [projectId]);
      expect(rows.map((row) => row.name)).toEqual(['also_kept', 'first', 'kept']);
    } finally {
      await dataSource.query(`DROP TRIGGER IF EXISTS ${refuse} ON events`);
      await dataSource.query(`DROP FUNCTION IF EXISTS ${refuse}()`);
    }
  });
});
