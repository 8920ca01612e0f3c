import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TrackWriter } from '../../src/events/track-writer';
import { createProject } from '../automations/fixtures';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { until } from '../support/wait';

/**
 * On a database of its own: the tests make dispatch rows due, as a long backlog would, and a
 * redelivery pass of another test file on the shared database would claim them.
 */
describe('tracked events answered before their delivery (TrackWriter backlog)', () => {
  let database: ScratchDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'track_backlog', 4);
    ({ dataSource } = database);
  });
  afterAll(() => database?.drop());

  /** A gate the subscriber waits at until the test opens it. */
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };

  const dispatchRows = async (projectId: string) =>
    (await dataSource.query('SELECT id, attempts, retry_at > now() + interval \'20 seconds\' AS far FROM event_dispatches WHERE project_id = $1 ORDER BY id', [projectId])) as {
      id: string;
      attempts: number;
      far: boolean;
    }[];

  it('answers past its memory bound while subscribers fall behind, holds at its backlog bound, and delivers each event once, in the order stored', async () => {
    const { projectId } = await createProject(dataSource);
    const dispatcher = new EventDispatcher();
    let answered = 0;
    let mostAhead = 0;
    const deliveredIds: string[] = [];
    const seen: { client: number; n: number }[] = [];
    // A subscriber whose work grows with the events it is given (2 ms each), slower than the commits.
    dispatcher.subscribe(async (events) => {
      const own = events.filter((event) => event.projectId === projectId && event.name === 'tick');
      if (own.length > 0) await dataSource.query('SELECT pg_sleep($1)', [own.length * 0.002]);
      for (const event of own) {
        deliveredIds.push(event.id);
        seen.push(event.data as { client: number; n: number });
      }
    });
    const maxUndelivered = 20;
    const maxBacklog = 120;
    const contacts = new ContactsService(dataSource, dispatcher);
    // Counts the groups read back from Postgres: those held by id, not kept in memory.
    let readBack = 0;
    const readHeld = contacts.readHeld.bind(contacts);
    contacts.readHeld = async (held) => {
      const dispatches = await readHeld(held);
      readBack += dispatches.length;
      return dispatches;
    };
    const writer = new TrackWriter(contacts, { maxUndelivered, maxBacklog });

    const clients = 10;
    const perClient = 40;
    const answers = await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        const ids: string[] = [];
        for (let n = 0; n < perClient; n += 1) {
          const tracked = await writer.track(projectId, { email: `client-${client}@example.test`, event: 'tick', data: { client, n } });
          ids.push(tracked.event);
          answered += 1;
          mostAhead = Math.max(mostAhead, answered - deliveredIds.length);
        }
        return ids;
      }),
    );

    // Answers ran past the memory bound (the rest was held by id), never past the backlog bound and a group (one request per client).
    expect(mostAhead).toBeGreaterThan(maxUndelivered + clients);
    expect(mostAhead).toBeLessThanOrEqual(maxBacklog + clients);
    const stored: { id: string }[] = await dataSource.query(`SELECT id FROM events WHERE project_id = $1 AND name = 'tick'`, [projectId]);
    expect(stored).toHaveLength(clients * perClient);
    await until(async () => deliveredIds.length, (n) => n >= clients * perClient, 'every tracked event delivered');
    await until(() => dispatchRows(projectId), (rows) => rows.length === 0, 'every dispatch row removed');
    expect(deliveredIds).toHaveLength(clients * perClient);
    expect(readBack).toBeGreaterThan(0);
    expect([...deliveredIds].sort()).toEqual(answers.flat().sort());
    // Each client's events reached the subscriber in the order they were tracked, those held by id included.
    for (let client = 0; client < clients; client += 1) {
      expect(seen.filter((event) => event.client === client).map((event) => event.n)).toEqual(Array.from({ length: perClient }, (_, n) => n));
    }
  });

  it('keeps the worker off the dispatch rows it holds, leaves it those it claimed, and delivers the rest once subscribers catch up', async () => {
    const { projectId } = await createProject(dataSource);
    const dispatcher = new EventDispatcher();
    const { opened, open } = gate();
    const delivered: string[] = [];
    dispatcher.subscribe(async (events) => {
      const own = events.filter((event) => event.projectId === projectId);
      if (own.length === 0) return;
      await opened;
      delivered.push(...own.map((event) => event.id));
    });
    const writer = new TrackWriter(new ContactsService(dataSource, dispatcher), { maxUndelivered: 1, maxBacklog: 1000, renewalMs: 100 });

    // The first event's delivery waits at the gate; the next ones are answered and held by id.
    const first = await writer.track(projectId, { email: 'first@example.test', event: 'tick' });
    const later = [];
    for (let n = 0; n < 5; n += 1) later.push(await writer.track(projectId, { email: `later-${n}@example.test`, event: 'tick' }));
    const rows = await dispatchRows(projectId);
    expect(rows).toHaveLength(6);

    // Every row due now, as if the backlog had outlasted its first retry time, and one of them
    // claimed by the worker (its attempts counted): the renewal pushes back the others only.
    const claimed = rows[3];
    await dataSource.query('UPDATE event_dispatches SET retry_at = now(), attempts = CASE WHEN id = $2 THEN 1 ELSE 0 END WHERE project_id = $1', [projectId, claimed.id]);
    const renewed = await until(
      () => dispatchRows(projectId),
      (found) => found.filter((row) => row.id !== claimed.id).every((row) => row.far),
      'every unclaimed held row pushed back',
    );
    expect(renewed.find((row) => row.id === claimed.id)).toMatchObject({ attempts: 1, far: false });
    open();
    const expected = [first, ...later].map((tracked) => tracked.event).filter((_, i) => i !== 3);
    await until(async () => delivered.length, (n) => n >= expected.length, 'the held events delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(delivered).toEqual(expected);
    const left = await until(() => dispatchRows(projectId), (found) => found.length === 1, 'the delivered rows removed');
    expect(left.map((row) => row.id)).toEqual([claimed.id]);
  });

  it('stops keeping the worker off its rows while its deliveries stall, so the worker takes them over', async () => {
    const { projectId } = await createProject(dataSource);
    const dispatcher = new EventDispatcher();
    const { opened, open } = gate();
    dispatcher.subscribe(async (events) => {
      if (events.some((event) => event.projectId === projectId)) await opened;
    });
    // Renewals every 100 ms: a delivery that has not ended for 12 of them (1.2 s) counts as stalled.
    const writer = new TrackWriter(new ContactsService(dataSource, dispatcher), { maxUndelivered: 1, maxBacklog: 1000, renewalMs: 100 });
    try {
      for (let n = 0; n < 4; n += 1) await writer.track(projectId, { email: `stalled-${n}@example.test`, event: 'tick' });
      await dataSource.query('UPDATE event_dispatches SET retry_at = now() WHERE project_id = $1', [projectId]);
      await until(() => dispatchRows(projectId), (rows) => rows.every((row) => row.far), 'the rows pushed back while the delivery is young');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await dataSource.query('UPDATE event_dispatches SET retry_at = now() WHERE project_id = $1', [projectId]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rows = await dispatchRows(projectId);
      expect(rows).toHaveLength(4);
      expect(rows.filter((row) => row.far)).toEqual([]);
    } finally {
      open();
    }
    await until(() => dispatchRows(projectId), (rows) => rows.length === 0, 'every event delivered once the subscriber answers');
  });

  it('answers another project while one project falls behind', async () => {
    const slow = await createProject(dataSource);
    const other = await createProject(dataSource);
    const dispatcher = new EventDispatcher();
    const { opened, open } = gate();
    dispatcher.subscribe(async (events) => {
      if (events.some((event) => event.projectId === slow.projectId)) await opened;
    });
    const writer = new TrackWriter(new ContactsService(dataSource, dispatcher), { maxUndelivered: 5, maxBacklog: 1000 });
    try {
      for (let n = 0; n < 50; n += 1) await writer.track(slow.projectId, { email: `burst-${n}@example.test`, event: 'signup' });
      const answer = await writer.track(other.projectId, { email: 'someone@example.test', event: 'signup' });
      const [stored] = await dataSource.query('SELECT count(*)::int AS n FROM events WHERE id = $1', [answer.event]);
      expect(stored.n).toBe(1);
    } finally {
      open();
    }
    for (const { projectId } of [slow, other]) await until(() => dispatchRows(projectId), (rows) => rows.length === 0, 'every event delivered');
  });
});
