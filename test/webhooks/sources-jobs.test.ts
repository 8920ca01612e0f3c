import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { JobRunner } from '../../src/jobs/job-runner';
import { addEndpoint, recordedEvents } from './sources-support';

describe('contact.* webhook events from CSV imports and bulk jobs', () => {
  let dataSource: DataSource;
  let runner: JobRunner;
  let projectId: string;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
    runner = new JobRunner(dataSource, new ContactsService(dataSource, new EventDispatcher()));
  });
  afterAll(() => dataSource?.destroy());
  beforeEach(async () => {
    [{ id: projectId }] = await dataSource.query(`INSERT INTO projects (name) VALUES ('Jobs') RETURNING id`);
    await addEndpoint(dataSource, projectId, ['contact.created', 'contact.updated', 'contact.deleted', 'contact.subscribed', 'contact.unsubscribed']);
  });

  /** Runs a job of `type` with `input` (and a CSV upload for an import) to its end. */
  async function run(type: string, input: Record<string, unknown>, csv?: string): Promise<void> {
    const [{ id }] = await dataSource.query(`INSERT INTO jobs (project_id, type, status, input) VALUES ($1, $2, 'QUEUED', $3) RETURNING id`, [
      projectId,
      type,
      JSON.stringify(input),
    ]);
    if (csv !== undefined) await dataSource.query(`INSERT INTO job_uploads (job_id, filename, content) VALUES ($1, 'contacts.csv', $2)`, [id, Buffer.from(csv)]);
    const job = (await runner.begin(id))!;
    if (type === 'IMPORT') await runner.runImport(job, () => undefined);
    else await runner.runBulk(job, () => undefined);
  }

  const typesByEmail = async () =>
    (await recordedEvents(dataSource, projectId)).map((event) => `${event.type} ${event.data.email}`).sort();

  it('records contact.created for imported rows, contact.updated for changed ones and nothing for unchanged ones', async () => {
    await run('IMPORT', {}, 'email,plan\nada@example.com,pro\nbob@example.com,free\n');
    await run('IMPORT', {}, 'email,plan\nada@example.com,pro\nbob@example.com,team\n');
    expect(await typesByEmail()).toEqual([
      'contact.created ada@example.com',
      'contact.created bob@example.com',
      'contact.updated bob@example.com',
    ]);
    const [updated] = (await recordedEvents(dataSource, projectId)).filter((event) => event.type === 'contact.updated');
    expect(updated.data).toEqual({ contactId: expect.any(String), email: 'bob@example.com', subscribed: true, data: { plan: 'team' } });
  });

  it('records contact.unsubscribed for each contact a bulk unsubscribe flips, and contact.deleted for each one a bulk delete removes', async () => {
    await run('IMPORT', {}, 'email\ncy@example.com\ndi@example.com\n');
    const ids: string[] = (await dataSource.query('SELECT id FROM contacts WHERE project_id = $1 ORDER BY email', [projectId])).map((row: { id: string }) => row.id);
    await run('BULK_UNSUBSCRIBE', { contactIds: ids });
    await run('BULK_UNSUBSCRIBE', { contactIds: ids });
    await run('BULK_DELETE', { contactIds: ids });
    expect(await typesByEmail()).toEqual([
      'contact.created cy@example.com',
      'contact.created di@example.com',
      'contact.deleted cy@example.com',
      'contact.deleted di@example.com',
      'contact.unsubscribed cy@example.com',
      'contact.unsubscribed di@example.com',
      'contact.updated cy@example.com',
      'contact.updated di@example.com',
    ]);
  });
});
