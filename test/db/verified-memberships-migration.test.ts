import { VerifiedMemberships1764623000000 } from '../../migrations/1764623000000-verified-memberships';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

describe('migration VerifiedMemberships', () => {
  let database: ScratchDatabase;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'memberships');
  });
  afterAll(() => database?.drop());

  it('turns the memberships of unverified accounts into invites, keeping creators and verified members', async () => {
    const db = database.dataSource;
    const user = async (email: string, verified: boolean) =>
      (await db.query('INSERT INTO users (email, password_hash, email_verified) VALUES ($1, $2, $3) RETURNING id', [email, 'x', verified]))[0].id;
    const creator = await user('creator@example.com', false);
    const squatter = await user('squatter@example.com', false);
    const teammate = await user('teammate@example.com', true);
    const [{ id: projectId }] = await db.query(`INSERT INTO projects (name, created_at) VALUES ('P', '2025-01-01T00:00:00Z') RETURNING id`);
    await db.query(`INSERT INTO project_members (project_id, user_id, role, created_at) VALUES ($1, $2, 'OWNER', '2025-01-01T00:00:00Z')`, [projectId, creator]);
    await db.query(`INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, 'ADMIN'), ($1, $3, 'MEMBER')`, [projectId, squatter, teammate]);

    const runner = db.createQueryRunner();
    try {
      await new VerifiedMemberships1764623000000().up(runner);
    } finally {
      await runner.release();
    }

    const members = await db.query('SELECT user_id, role FROM project_members WHERE project_id = $1 ORDER BY role', [projectId]);
    expect(members).toEqual([{ user_id: teammate, role: 'MEMBER' }, { user_id: creator, role: 'OWNER' }]);
    expect(await db.query('SELECT email, role FROM project_invites WHERE project_id = $1', [projectId])).toEqual([
      { email: 'squatter@example.com', role: 'ADMIN' },
    ]);
  });
});
