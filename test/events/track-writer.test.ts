import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { BillingLimitExceededError } from '../../src/billing/limits';
import { DataKeyLimitError, MAX_DATA_KEYS } from '../../src/contacts/data-key-limit';
import { openDatabase } from '../../src/db/data-source';
import type { EventRecord } from '../../src/entities/event-record';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TrackWriter, type TrackInput, type Tracked } from '../../src/events/track-writer';
import { createContact, createProject } from '../automations/fixtures';
import { until } from '../support/wait';

describe('group commit of tracked events (TrackWriter)', () => {
  let dataSource: DataSource;
  let projectId: string;
  let writer: TrackWriter;
  let delivered: EventRecord[];

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
  });
  beforeEach(async () => {
    ({ projectId } = await createProject(dataSource));
    const dispatcher = new EventDispatcher();
    delivered = [];
    dispatcher.subscribe((events) => {
      delivered.push(...events.filter((event) => event.projectId === projectId));
    });
    writer = new TrackWriter(new ContactsService(dataSource, dispatcher));
  });
  afterAll(() => dataSource?.destroy());

  /** Sends every input in the same tick: the first is written alone, the others queue up and share the following groups. */
  const trackAll = (inputs: TrackInput[]) => Promise.allSettled(inputs.map((input) => writer.track(projectId, input)));
  const ok = (results: PromiseSettledResult<Tracked>[]) =>
    results.map((result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    });
  const contactsByEmail = async () => {
    const rows: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> }[] = await dataSource.query(
      'SELECT id, email, subscribed, data FROM contacts WHERE project_id = $1',
      [projectId],
    );
    return new Map(rows.map((row) => [row.email, row]));
  };
  const storedEvents = (): Promise<{ id: string; contact_id: string; name: string; data: Record<string, unknown>; created_at: Date }[]> =>
    dataSource.query('SELECT id, contact_id, name, data, created_at FROM events WHERE project_id = $1', [projectId]);

  it('stores every event of concurrent requests for the same and different contacts exactly once, applying each contact\'s patches in order', async () => {
    const inputs: TrackInput[] = [];
    for (let round = 0; round < 6; round += 1) {
      for (let c = 0; c < 8; c += 1) {
        inputs.push({ email: `Person-${c}@Example.test`, event: `step.${round}`, data: { [`k${round}`]: round, last: round, gone: round === 2 ? null : 'here' } });
      }
    }
    const answers = ok(await trackAll(inputs));

    const contacts = await contactsByEmail();
    expect(contacts.size).toBe(8);
    for (let c = 0; c < 8; c += 1) {
      const contact = contacts.get(`person-${c}@example.test`)!;
      expect(contact.data).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, last: 5, gone: 'here' });
      expect(contact.subscribed).toBe(true);
    }
    const events = await storedEvents();
    expect(events).toHaveLength(inputs.length);
    expect(new Set(events.map((event) => event.id)).size).toBe(inputs.length);
    const byId = new Map(events.map((event) => [event.id, event]));
    answers.forEach((answer, i) => {
      const event = byId.get(answer.event)!;
      expect(event.name).toBe(inputs[i].event);
      expect(event.contact_id).toBe(answer.contact);
      expect(answer.contact).toBe(contacts.get(inputs[i].email.toLowerCase())!.id);
    });
    for (const contact of contacts.values()) {
      const own = events.filter((event) => event.contact_id === contact.id).sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
      expect(own.map((event) => event.name)).toEqual(['step.0', 'step.1', 'step.2', 'step.3', 'step.4', 'step.5']);
    }
    // Answers come once a group committed; its delivery and the removal of its dispatch row follow.
    await until(async () => delivered.length, (count) => count >= events.length, 'the delivery of every event');
    expect(delivered.map((event) => event.id).sort()).toEqual(events.map((event) => event.id).sort());
    await until(() => dataSource.query('SELECT 1 FROM event_dispatches WHERE project_id = $1', [projectId]), (rows) => rows.length === 0, 'the dispatch rows removed');
  });

  it('emits one subscription event per flip, in order, for one contact\'s concurrent requests', async () => {
    await createContact(dataSource, projectId, { email: 'flip@example.test', subscribed: true });
    const flips = [false, true, undefined, false];
    ok(await trackAll(flips.map((subscribed, i) => ({ email: 'flip@example.test', event: `e${i}`, subscribed }))));

    const names: { name: string }[] = await dataSource.query(
      `SELECT name FROM events WHERE project_id = $1 ORDER BY created_at, CASE WHEN name LIKE 'contact.%' THEN 0 ELSE 1 END`,
      [projectId],
    );
    expect(names.map((row) => row.name)).toEqual(['contact.unsubscribed', 'e0', 'contact.subscribed', 'e1', 'e2', 'contact.unsubscribed', 'e3']);
    expect((await contactsByEmail()).get('flip@example.test')!.subscribed).toBe(false);
  });

  it('answers each request of a group that failed on its own: a refused one gets its error, the others are stored once', async () => {
    await dataSource.query(
      `INSERT INTO contact_fields (project_id, key, type) SELECT $1, 'k' || n, 'string' FROM generate_series(1, $2) AS n`,
      [projectId, MAX_DATA_KEYS - 1],
    );
    const inputs: TrackInput[] = [
      { email: 'first@example.test', event: 'opened', data: { k1: 'a' } },
      { email: 'a@example.test', event: 'new-key', data: { brandNew: 1 } },
      { email: 'b@example.test', event: 'known-keys', data: { k2: 'b' } },
      { email: 'c@example.test', event: 'another-new-key', data: { otherNew: 2 } },
      { email: 'd@example.test', event: 'no-data' },
    ];
    const results = await trackAll(inputs);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(DataKeyLimitError);
    const events = await storedEvents();
    expect(events.map((event) => event.name).sort()).toEqual(['known-keys', 'new-key', 'no-data', 'opened']);
    expect([...(await contactsByEmail()).keys()].sort()).toEqual(['a@example.test', 'b@example.test', 'd@example.test', 'first@example.test']);
    await until(async () => delivered.length, (count) => count >= events.length, 'the delivery of every event');
    expect(delivered.map((event) => event.id).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it('creates contacts up to the contacts cap exactly, answering each request past it with its own refusal', async () => {
    await dataSource.query('INSERT INTO billing_limits (project_id, contacts) VALUES ($1, 3)', [projectId]);
    const results = await trackAll(Array.from({ length: 6 }, (_, i) => ({ email: `new-${i}@example.test`, event: 'signed-up' })));

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const result of results.slice(3)) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BillingLimitExceededError);
    expect([...(await contactsByEmail()).keys()].sort()).toEqual(['new-0@example.test', 'new-1@example.test', 'new-2@example.test']);
    expect(await storedEvents()).toHaveLength(3);
  });
});
