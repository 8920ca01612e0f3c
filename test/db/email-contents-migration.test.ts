import { EmailContents1764630000000 } from '../../migrations/1764630000000-email-contents';
import { RelayParts1764720000000 } from '../../migrations/1764720000000-relay-parts';
import { LiteralContents1764730000000 } from '../../migrations/1764730000000-literal-contents';
import { Email } from '../../src/entities/email';
import { loadParts } from '../../src/sending/email-contents-queries';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

describe('migration EmailContents', () => {
  let database: ScratchDatabase;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'contents');
  });
  afterAll(() => database?.drop());

  /** Runs EmailContents up or down, with the later migrations that add columns to its tables (RelayParts, LiteralContents) around it. */
  const migrate = async (step: 'up' | 'down') => {
    const runner = database.dataSource.createQueryRunner();
    const steps = [new EmailContents1764630000000(), new RelayParts1764720000000(), new LiteralContents1764730000000()];
    try {
      for (const migration of step === 'up' ? steps : steps.reverse()) await migration[step](runner);
    } finally {
      await runner.release();
    }
  };

  it('moves the attachments of existing emails to a content of their own, which delivery reads, and back down', async () => {
    const db = database.dataSource;
    await migrate('down');
    const [{ id: projectId }] = await db.query(`INSERT INTO projects (name) VALUES ('P') RETURNING id`);
    const email = async (body: string) =>
      (
        await db.query(
          `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, headers, variables, status)
           VALUES ($1, 'SEND', 'TRANSACTIONAL', 'a@example.com', 'f@example.com', 's', $2, '{"X-A": "1"}', '{"code": "C"}', 'QUEUED') RETURNING id`,
          [projectId, body],
        )
      )[0].id;
    const withFile = await email('<p>{{ code }}</p>');
    const plain = await email('plain');
    await db.query(`INSERT INTO email_attachments (email_id, position, filename, content_type, content) VALUES ($1, 0, 'a.txt', 'text/plain', 'hi')`, [withFile]);

    await migrate('up');

    const rows = await db.query('SELECT id, body, content_id, headers FROM emails WHERE project_id = $1 ORDER BY body NULLS FIRST', [projectId]);
    expect(rows).toEqual([
      { id: withFile, body: null, content_id: withFile, headers: {} },
      { id: plain, body: 'plain', content_id: null, headers: { 'X-A': '1' } },
    ]);
    const moved = await db.getRepository(Email).findOneByOrFail({ id: withFile });
    expect(await loadParts(db.manager, moved)).toEqual({
      body: '<p>{{ code }}</p>',
      text: null,
      headers: { 'X-A': '1' },
      variables: { code: 'C' },
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hi') }],
    });

    await migrate('down');
    expect(await db.query('SELECT body, headers FROM emails WHERE id = $1', [withFile])).toEqual([{ body: '<p>{{ code }}</p>', headers: { 'X-A': '1' } }]);
    expect(await db.query('SELECT email_id, filename FROM email_attachments')).toEqual([{ email_id: withFile, filename: 'a.txt' }]);
    await migrate('up');
  });
});
