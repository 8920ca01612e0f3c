import type { DataSource } from 'typeorm';
import type { EventRecord } from '../../src/entities/event-record';
import { EventDispatcher } from '../../src/events/dispatcher';
import { withEvents } from '../../src/events/event-store';
import { MAX_DISPATCH_ATTEMPTS, redeliverDue } from '../../src/events/redelivery';
import { createContact, createProject } from '../automations/fixtures';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

/**
 * On a database of its own: a redelivery pass claims every due dispatch of the database, so on
 * the shared one it would take other test files' dispatches, and theirs would take this file's.
 */
describe('durable event dispatch', () => {
  let database: ScratchDatabase;
  let dataSource: DataSource;
  let projectId: string;
  let contactId: string;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'event_dispatch', 4);
    ({ dataSource } = database);
  });
  beforeEach(async () => {
    ({ projectId } = await createProject(dataSource));
    ({ contactId } = await createContact(dataSource, projectId));
  });
  afterAll(() => database?.drop());

  /**
   * A dispatcher that records what it is handed for this test's project (a redelivery pass
   * claims the due dispatches of every project); `failures` calls of its subscriber for the
   * project fail first.
   */
  function recordingDispatcher(failures = 0) {
    const dispatcher = new EventDispatcher();
    const deliveries: string[][] = [];
    const changes: string[][] = [];
    let left = failures;
    dispatcher.subscribe((events: EventRecord[]) => {
      const ours = events.filter((event) => event.projectId === projectId);
      if (ours.length === 0) return;
      deliveries.push(ours.map((event) => event.name));
      if (left > 0) {
        left -= 1;
        throw new Error('subscriber unavailable');
      }
    });
    dispatcher.onContactsChanged((changedProject, ids) => {
      if (changedProject === projectId) changes.push(ids);
    });
    return { dispatcher, deliveries, changes };
  }

  const queued = (): Promise<{ attempts: number; event_ids: string[]; contact_ids: string[] }[]> =>
    dataSource.query('SELECT attempts, event_ids, contact_ids FROM event_dispatches WHERE project_id = $1', [projectId]);
  const makeDue = () => dataSource.query('UPDATE event_dispatches SET retry_at = now() WHERE project_id = $1', [projectId]);
  const store = (dispatcher: EventDispatcher, names: string[]) =>
    withEvents(dataSource, dispatcher, async (tx) => {
      tx.contactsChanged(projectId, [contactId]);
      return tx.record(names.map((name) => ({ projectId, contactId, name, source: 'API' as const })));
    });

  it('delivers after the commit, in the order stored, and leaves nothing queued', async () => {
    const { dispatcher, deliveries, changes } = recordingDispatcher();
    await store(dispatcher, ['signup', 'purchase']);
    expect(deliveries).toEqual([['signup', 'purchase']]);
    expect(changes).toEqual([[contactId]]);
    expect(await queued()).toEqual([]);
  });

  it('removes the dispatches of many concurrent transactions once delivered', async () => {
    const { dispatcher, deliveries } = recordingDispatcher();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store(dispatcher, [`event-${i}`])));
    expect(deliveries).toHaveLength(20);
    expect(await queued()).toEqual([]);
  });

  it('queues and delivers nothing for a transaction that rolls back', async () => {
    const { dispatcher, deliveries } = recordingDispatcher();
    await expect(
      withEvents(dataSource, dispatcher, async (tx) => {
        await tx.record([{ projectId, contactId, name: 'signup', source: 'API' }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(deliveries).toEqual([]);
    expect(await queued()).toEqual([]);
    expect(await dataSource.query('SELECT 1 FROM events WHERE project_id = $1', [projectId])).toEqual([]);
  });

  it('keeps a dispatch whose subscriber failed, and delivers it again once due', async () => {
    const { dispatcher, deliveries } = recordingDispatcher(1);
    const [signup] = await store(dispatcher, ['signup']);
    expect(await queued()).toEqual([{ attempts: 0, event_ids: [signup.id], contact_ids: [contactId] }]);

    await redeliverDue(dataSource, dispatcher);
    expect(deliveries).toEqual([['signup']]);
    expect(await queued()).toHaveLength(1);

    await makeDue();
    expect((await redeliverDue(dataSource, dispatcher)).delivered).toBeGreaterThanOrEqual(1);
    expect(deliveries).toEqual([['signup'], ['signup']]);
    expect(await queued()).toEqual([]);
  });

  it("redelivers a project's due dispatches together in the order stored, and each alone when together fails", async () => {
    const { dispatcher: failing } = recordingDispatcher(3);
    for (const name of ['first', 'second', 'third']) await store(failing, [name]);
    expect(await queued()).toHaveLength(3);
    await makeDue();
    const together = recordingDispatcher();
    const passed = await redeliverDue(dataSource, together.dispatcher, 1000);
    expect(together.deliveries).toEqual([['first', 'second', 'third']]);
    expect(together.changes).toEqual([[contactId]]);
    expect(passed.delivered).toBeGreaterThanOrEqual(3);
    expect(await queued()).toEqual([]);

    const { dispatcher: failingAgain } = recordingDispatcher(3);
    for (const name of ['fourth', 'fifth', 'sixth']) await store(failingAgain, [name]);
    expect(await queued()).toHaveLength(3);
    await makeDue();
    // The delivery of the three together fails: each is then delivered alone, in order.
    const once = recordingDispatcher(1);
    await redeliverDue(dataSource, once.dispatcher, 1000);
    expect(once.deliveries).toEqual([['fourth', 'fifth', 'sixth'], ['fourth'], ['fifth'], ['sixth']]);
    expect(await queued()).toEqual([]);
  });

  it('delivers a dispatch left by a process that died after its commit', async () => {
    const [{ id: eventId }]: { id: string }[] = await dataSource.query(
      `INSERT INTO events (project_id, contact_id, name, source, data) VALUES ($1, $2, 'signup', 'API', '{}') RETURNING id`,
      [projectId, contactId],
    );
    await dataSource.query(`INSERT INTO event_dispatches (project_id, event_ids, contact_ids, retry_at) VALUES ($1, $2, $3, now())`, [
      projectId,
      [eventId],
      [contactId],
    ]);
    const { dispatcher, deliveries, changes } = recordingDispatcher();
    await redeliverDue(dataSource, dispatcher);
    expect(deliveries).toEqual([['signup']]);
    expect(changes).toEqual([[contactId]]);
    expect(await queued()).toEqual([]);
  });

  it('backs off after each failed redelivery and gives up after the last attempt', async () => {
    const { dispatcher, deliveries } = recordingDispatcher(Number.MAX_SAFE_INTEGER);
    await store(dispatcher, ['signup']);
    await makeDue();
    await redeliverDue(dataSource, dispatcher);
    expect(deliveries).toHaveLength(2);
    expect(await queued()).toEqual([expect.objectContaining({ attempts: 1 })]);
    const [{ wait }]: { wait: number }[] = await dataSource.query(
      'SELECT extract(epoch FROM retry_at - now())::float8 AS wait FROM event_dispatches WHERE project_id = $1',
      [projectId],
    );
    expect(wait).toBeGreaterThan(20);
    await dataSource.query('UPDATE event_dispatches SET retry_at = now(), attempts = $2 WHERE project_id = $1', [projectId, MAX_DISPATCH_ATTEMPTS - 1]);
    expect((await redeliverDue(dataSource, dispatcher)).abandoned).toBeGreaterThanOrEqual(1);
    expect(deliveries).toHaveLength(3);
    expect(await queued()).toEqual([]);
  });

  it('lets concurrent redelivery passes claim a dispatch once', async () => {
    const { dispatcher: failing } = recordingDispatcher(1);
    await store(failing, ['signup']);
    await makeDue();
    const slow = new EventDispatcher();
    let calls = 0;
    slow.subscribe(async (events) => {
      if (!events.some((event) => event.projectId === projectId)) return;
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    await Promise.all([redeliverDue(dataSource, slow), redeliverDue(dataSource, slow), redeliverDue(dataSource, slow)]);
    expect(calls).toBe(1);
    expect(await queued()).toEqual([]);
  });
});
