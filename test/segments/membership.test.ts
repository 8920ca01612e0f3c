import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import type { EventRecord } from '../../src/entities/event-record';
import { EventDispatcher } from '../../src/events/dispatcher';
import { SegmentMembership } from '../../src/segments/membership';
import { createContact, createProject } from '../automations/fixtures';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

/**
 * On a database of its own: the schedule workflow's full computation (recomputeTrackedSegments)
 * moves the members of every tracked segment of the database, and one run by another test file
 * on the shared database would move these segments' members before the re-evaluations do.
 */
describe('re-evaluating contacts against tracked segments (SegmentMembership.reevaluate)', () => {
  let database: ScratchDatabase;
  let dataSource: DataSource;
  let projectId: string;
  let segmentId: string;
  let membership: SegmentMembership;
  let delivered: EventRecord[];

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'segment_membership', 6);
    ({ dataSource } = database);
  });
  beforeEach(async () => {
    ({ projectId } = await createProject(dataSource));
    [{ id: segmentId }] = await dataSource.query(
      `INSERT INTO segments (project_id, name, slug, type, condition, track_membership) VALUES ($1, 'VIP', 'vip', 'DYNAMIC', $2, true) RETURNING id`,
      [projectId, JSON.stringify(pro)],
    );
    const dispatcher = new EventDispatcher();
    delivered = [];
    dispatcher.subscribe((events) => {
      delivered.push(...events.filter((event) => event.projectId === projectId));
    });
    membership = new SegmentMembership(dataSource, new ContactsService(dataSource, dispatcher));
  });
  afterAll(() => database?.drop());

  const members = async () =>
    ((await dataSource.query('SELECT contact_id FROM segment_members WHERE segment_id = $1', [segmentId])) as { contact_id: string }[])
      .map((row) => row.contact_id)
      .sort();
  const stored = (): Promise<{ id: string; contact_id: string; name: string; source: string; data: unknown }[]> =>
    dataSource.query('SELECT id, contact_id, name, source, data FROM events WHERE project_id = $1', [projectId]);

  it('enters matching contacts and exits those that stop matching, one event each however many re-evaluations run at once', async () => {
    const ada = (await createContact(dataSource, projectId, { data: { plan: 'pro' } })).contactId;
    const bob = (await createContact(dataSource, projectId, { data: { plan: 'pro' } })).contactId;
    const cy = (await createContact(dataSource, projectId, { data: { plan: 'free' } })).contactId;
    const all = [ada, bob, cy];

    await Promise.all([1, 2, 3, 4].map(() => membership.reevaluate(projectId, all)));
    expect(await members()).toEqual([ada, bob].sort());
    const entries = await stored();
    expect(entries.map((event) => `${event.name}:${event.source}`)).toEqual(['segment.vip.entry:SYSTEM', 'segment.vip.entry:SYSTEM']);
    expect(entries.map((event) => event.contact_id).sort()).toEqual([ada, bob].sort());
    expect(entries[0].data).toEqual({ segmentId, segmentName: 'VIP' });

    await dataSource.query(`UPDATE contacts SET data = '{"plan":"free"}' WHERE id = $1`, [bob]);
    await dataSource.query(`UPDATE contacts SET data = '{"plan":"pro"}' WHERE id = $1`, [cy]);
    await Promise.all([1, 2].map(() => membership.reevaluate(projectId, all)));
    expect(await members()).toEqual([ada, cy].sort());
    const events = await stored();
    expect(events.filter((event) => event.name === 'segment.vip.exit').map((event) => event.contact_id)).toEqual([bob]);
    expect(events.filter((event) => event.name === 'segment.vip.entry').map((event) => event.contact_id).sort()).toEqual([ada, bob, cy].sort());

    expect(delivered.map((event) => event.id).sort()).toEqual(events.map((event) => event.id).sort());
    expect(await dataSource.query('SELECT 1 FROM event_dispatches WHERE project_id = $1', [projectId])).toHaveLength(0);
  });

  it('stores nothing and queues no dispatch when nobody moves', async () => {
    const ada = (await createContact(dataSource, projectId, { data: { plan: 'free' } })).contactId;
    await membership.reevaluate(projectId, [ada]);
    expect(await members()).toEqual([]);
    expect(await stored()).toEqual([]);
    expect(await dataSource.query('SELECT 1 FROM event_dispatches WHERE project_id = $1', [projectId])).toHaveLength(0);
  });
});
