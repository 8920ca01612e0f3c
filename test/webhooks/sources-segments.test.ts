import type { EventRecord } from '../../src/entities/event-record';
import { ContactsService } from '../../src/contacts/contacts-service';
import { SegmentMembership } from '../../src/segments/membership';
import { signupWithProject } from '../support/api';
import { useSignedUpProject } from '../support/stack';
import { until } from '../support/wait';
import { addEndpoint, deliveriesOf, recordedEvents } from './sources-support';

const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('segment.<slug>.entry|exit webhook events from tracked segments', () => {
  const given = useSignedUpProject();

  const createSegment = async (name: string) => {
    const answer = await given.client.post('/segments', { name, condition: pro, trackMembership: true }, { key: given.project.secretKey });
    expect(answer.status).toBe(201);
    const [{ slug }] = await given.api.dataSource.query('SELECT slug FROM segments WHERE id = $1', [answer.body.id]);
    return { id: answer.body.id as string, slug: slug as string };
  };
  const track = (email: string, plan: string) => given.client.post('/v1/track', { email, event: 'plan.changed', data: { plan } }, { key: given.project.publicKey });

  it('records entry and exit as a tracked contact joins and leaves, with the contact and the segment', async () => {
    const segment = await createSegment('Pro customers');
    const endpointId = await addEndpoint(given.api.dataSource, given.project.id, [`segment.${segment.slug}.entry`, `segment.${segment.slug}.exit`]);
    const joined = await track('ada@example.com', 'pro');
    const contactId = joined.body.data.contact;
    const membershipEvents = async (): Promise<{ id: string; name: string }[]> =>
      given.api.dataSource.query(`SELECT id, name FROM events WHERE contact_id = $1 AND source = 'SYSTEM' ORDER BY created_at`, [contactId]);
    // A tracked event is answered once stored; the segment sees it moments later.
    await until(membershipEvents, (events) => events.length === 1, 'the entry event');
    // Its webhook event tells the contact as the subscriber reads it, moments after the entry is stored.
    await until(() => recordedEvents(given.api.dataSource, given.project.id), (events) => events.length === 1, 'the entry recorded');
    await track('ada@example.com', 'pro');
    await track('ada@example.com', 'free');
    const stored = await until(membershipEvents, (events) => events.length === 2, 'the exit event');
    expect(stored.map((event) => event.name)).toEqual([`segment.${segment.slug}.entry`, `segment.${segment.slug}.exit`]);
    const contact = (plan: string) => ({ contactId, email: 'ada@example.com', subscribed: true, data: { plan } });
    // The SYSTEM events reach the webhook subscriber once their own transaction has committed.
    const recorded = await until(() => recordedEvents(given.api.dataSource, given.project.id), (events) => events.length >= 2, 'both recorded');
    expect(recorded).toEqual([
      { type: `segment.${segment.slug}.entry`, data: { ...contact('pro'), segmentId: segment.id, segmentName: 'Pro customers' }, key: `event:${stored[0].id}` },
      { type: `segment.${segment.slug}.exit`, data: { ...contact('free'), segmentId: segment.id, segmentName: 'Pro customers' }, key: `event:${stored[1].id}` },
    ]);
    expect(await deliveriesOf(given.api.dataSource, endpointId)).toHaveLength(2);
  });

  it('records the moves of a full computation once, however often its events are dispatched again', async () => {
    const segment = await createSegment('Computed');
    await addEndpoint(given.api.dataSource, given.project.id, ['*']);
    await given.api.dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed, data) SELECT $1, 'c' || i || '@example.com', true, '{"plan":"pro"}' FROM generate_series(1, 3) AS i`,
      [given.project.id],
    );
    const membership = new SegmentMembership(given.api.dataSource, new ContactsService(given.api.dataSource, given.api.dispatcher));
    expect((await membership.compute(segment.id)).entered).toBe(3);
    const stored: EventRecord[] = await given.api.dataSource.query(
      `SELECT id, project_id AS "projectId", contact_id AS "contactId", name, data, source FROM events WHERE project_id = $1 AND source = 'SYSTEM'`,
      [given.project.id],
    );
    expect(stored).toHaveLength(3);
    // The event-redelivery pass hands the same events to the subscribers again.
    expect(await given.api.dispatcher.publish(stored)).toBe(true);
    const recorded = await recordedEvents(given.api.dataSource, given.project.id);
    expect(recorded.map((event) => event.type)).toEqual([1, 2, 3].map(() => `segment.${segment.slug}.entry`));
    expect(recorded.map((event) => event.data.email).sort()).toEqual(['c1@example.com', 'c2@example.com', 'c3@example.com']);
  });

  it("records nothing for an unsubscribed segment's moves, nor for another project's endpoint", async () => {
    const segment = await createSegment('Quiet');
    await addEndpoint(given.api.dataSource, given.project.id, [`segment.${segment.slug}.exit`]);
    const other = (await signupWithProject(given.api)).project;
    const otherEndpoint = await addEndpoint(given.api.dataSource, other.id, ['*']);
    const tracked = await track('bob@example.com', 'pro');
    // Bob entered the segment (the move a subscriber of exits only does not hear about).
    await until(
      () => given.api.dataSource.query('SELECT 1 FROM segment_members WHERE segment_id = $1 AND contact_id = $2', [segment.id, tracked.body.data.contact]),
      (rows) => rows.length === 1,
      'the entry',
    );
    expect(await recordedEvents(given.api.dataSource, given.project.id)).toEqual([]);
    expect(await deliveriesOf(given.api.dataSource, otherEndpoint)).toEqual([]);
  });
});
