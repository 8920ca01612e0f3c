import type { DataSource, EntityManager } from 'typeorm';
import { upsertContacts } from '../../src/contacts/contacts-queries';
import { openDatabase } from '../../src/db/data-source';
import { Segment } from '../../src/entities/segment';
import { moveMembers, segmentContacts } from '../../src/segments/segments-queries';
import { createProject } from '../automations/fixtures';

/** Contacts of the busy project: enough that reading them all is plainly more than reading a handful. */
const CROWD = 3_000;

/**
 * The hot statements of tracking read only the contacts they are given, by index, in a project
 * of thousands of contacts, whatever the planner's statistics say: the contacts below arrive in
 * one statement and the table is not analysed afterwards, as in a project whose traffic began a
 * moment ago. Counted with Postgres's own per-transaction table counters.
 */
describe('rows read by the statements of a tracked event', () => {
  let dataSource: DataSource;
  let projectId: string;
  let crowd: string[];

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
    ({ projectId } = await createProject(dataSource));
    const rows: { id: string }[] = await dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1, 'crowd-' || i || '@example.com', true, jsonb_build_object('plan', CASE WHEN i % 2 = 0 THEN 'pro' ELSE 'free' END)
         FROM generate_series(1, $2::int) AS i RETURNING id`,
      [projectId, CROWD],
    );
    crowd = rows.map((row) => row.id);
  });
  afterAll(() => dataSource?.destroy());

  /** Runs `work` in a transaction and answers the contacts rows it read (sequentially or through an index). */
  async function contactsRead(work: (manager: EntityManager) => Promise<unknown>): Promise<number> {
    // The counters may still hold this connection's earlier reads: count the difference.
    const counted = async (manager: EntityManager) => {
      const [row] = await manager.query(
        `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_xact_user_tables WHERE relname = 'contacts'`,
      );
      return Number(row?.read ?? 0);
    };
    return dataSource.transaction(async (manager) => {
      const before = await counted(manager);
      await work(manager);
      return (await counted(manager)) - before;
    });
  }

  it('upserting a group of contacts reads those contacts, not the project', async () => {
    const items = [1, 2, 3, 4].map((i) => ({ email: `crowd-${i}@example.com`, set: { seen: i }, unset: [], subscribed: undefined }));
    items.push({ email: 'newcomer@example.com', set: { seen: 0 }, unset: [], subscribed: undefined });
    let outcomes: Awaited<ReturnType<typeof upsertContacts>>['outcomes'] = [];
    const read = await contactsRead(async (manager) => ({ outcomes } = await upsertContacts(manager, projectId, items, true)));
    expect(outcomes.map((outcome) => [outcome.email, outcome.isNew])).toEqual([
      ['crowd-1@example.com', false],
      ['crowd-2@example.com', false],
      ['crowd-3@example.com', false],
      ['crowd-4@example.com', false],
      ['newcomer@example.com', true],
    ]);
    expect(read).toBeLessThan(50);
  });

  it("re-evaluating a few contacts against a tracked segment reads those contacts, not the project's", async () => {
    const [{ id: segmentId }] = await dataSource.query(
      `INSERT INTO segments (project_id, name, slug, type, condition, track_membership) VALUES ($1, 'Pro', 'pro', 'DYNAMIC', $2, true) RETURNING id`,
      [projectId, JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] })],
    );
    // Members already: every second contact of the crowd (the pros) but the first two; one free contact by mistake.
    await dataSource.query(
      `INSERT INTO segment_members (segment_id, contact_id) SELECT $1, unnest($2::uuid[])`,
      [segmentId, [...crowd.filter((_, i) => i % 2 === 1).slice(2), crowd[0]]],
    );
    const segment = (await dataSource.manager.findOneByOrFail(Segment, { id: segmentId }))!;
    const matching = await segmentContacts(dataSource.manager, segment);
    const given = crowd.slice(0, 4);
    let moves: Awaited<ReturnType<typeof moveMembers>> = { events: [], dispatchId: null };
    const read = await contactsRead(async (manager) => (moves = await moveMembers(manager, segment, matching, given, {})));
    expect(moves.events.map((event) => [event.contactId, event.name]).sort()).toEqual(
      [
        [crowd[0], 'segment.pro.exit'],
        [crowd[1], 'segment.pro.entry'],
        [crowd[3], 'segment.pro.entry'],
      ].sort(),
    );
    expect(read).toBeLessThan(50);
  });
});
