import type { EventRecord } from '../../src/entities/event-record';
import { signupWithProject } from '../support/api';
import { useSignedUpProject } from '../support/stack';
import { until } from '../support/wait';

describe('POST /v1/track and events', () => {
  const given = useSignedUpProject();

  const track = (body: unknown, key = given.project.publicKey, headers?: Record<string, string>) =>
    given.client.post('/v1/track', body, { key, headers });
  const eventsOf = (contactId: string) =>
    given.api.dataSource.query('SELECT name, source, data FROM events WHERE contact_id = $1 ORDER BY created_at, name', [contactId]);

  it('upserts the contact then stores the event, with either key', async () => {
    const answer = await track({ email: 'Track@Example.com', event: 'signed-up', data: { plan: 'pro', once: { value: 42, persistent: false } } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { contact: expect.any(String), event: expect.any(String), timestamp: expect.any(String) } });
    const [contact] = await given.api.dataSource.query('SELECT email, subscribed, data FROM contacts WHERE id = $1', [answer.body.data.contact]);
    expect(contact).toEqual({ email: 'track@example.com', subscribed: true, data: { plan: 'pro' } });
    const [event] = await given.api.dataSource.query('SELECT id, name, source, data FROM events WHERE id = $1', [answer.body.data.event]);
    expect(event).toEqual({ id: answer.body.data.event, name: 'signed-up', source: 'API', data: { plan: 'pro', once: 42 } });
    expect((await track({ email: 'track@example.com', event: 'again' }, given.project.secretKey)).status).toBe(200);
    expect(await eventsOf(answer.body.data.contact)).toHaveLength(2);
  });

  it('creates a new contact unsubscribed when told, and leaves an existing one alone unless told', async () => {
    const quiet = await track({ email: 'quiet@example.com', event: 'x', subscribed: false });
    const id = quiet.body.data.contact;
    await track({ email: 'quiet@example.com', event: 'y' });
    expect((await given.api.dataSource.query('SELECT subscribed FROM contacts WHERE id = $1', [id]))[0].subscribed).toBe(false);
    await track({ email: 'quiet@example.com', event: 'z', subscribed: true });
    expect((await given.api.dataSource.query('SELECT subscribed FROM contacts WHERE id = $1', [id]))[0].subscribed).toBe(true);
    const names = (await eventsOf(id)).map((event: { name: string; source: string }) => `${event.name}:${event.source}`);
    expect(names).toEqual(expect.arrayContaining(['x:API', 'y:API', 'z:API', 'contact.subscribed:SYSTEM']));
    expect(names).toHaveLength(4);
  });

  it('writes the contact only when its data or subscription changes; the event is stored either way', async () => {
    const row = async (id: string) =>
      (await given.api.dataSource.query('SELECT xmin::text AS version, updated_at, data, subscribed FROM contacts WHERE id = $1', [id]))[0];
    const first = await track({ email: 'steady@example.com', event: 'a', data: { plan: 'pro', seats: 3 } });
    const id = first.body.data.contact;
    const before = await row(id);
    // The same values, a key unset that it does not have, a transient value and the subscription it has: nothing changes.
    for (const body of [
      { email: 'STEADY@example.com', event: 'b', data: { plan: 'pro' } },
      { email: 'steady@example.com', event: 'c', data: { seats: 3, missing: null, once: { value: 1, persistent: false } } },
      { email: 'steady@example.com', event: 'd', subscribed: true },
      { email: 'steady@example.com', event: 'e' },
    ]) {
      const answer = await track(body);
      expect(answer.status).toBe(200);
      expect(answer.body.data.contact).toBe(id);
    }
    expect(await row(id)).toEqual(before);
    expect((await eventsOf(id)).map((event: { name: string }) => event.name)).toEqual(['a', 'b', 'c', 'd', 'e']);

    await track({ email: 'steady@example.com', event: 'f', data: { seats: 4 } });
    const changed = await row(id);
    expect(changed.version).not.toBe(before.version);
    expect(changed.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(changed.data).toEqual({ plan: 'pro', seats: 4 });
    await track({ email: 'steady@example.com', event: 'g', subscribed: false });
    const unsubscribed = await row(id);
    expect(unsubscribed.version).not.toBe(changed.version);
    expect(unsubscribed.subscribed).toBe(false);
    expect((await eventsOf(id)).map((event: { name: string }) => event.name)).toContain('contact.unsubscribed');
  });

  it('refuses reserved event names with reserved_event and stores nothing', async () => {
    for (const event of ['email.opened', 'contact.subscribed', 'contact.unsubscribed', 'segment.vip-customers.entry', 'segment.vip.exit']) {
      const answer = await track({ email: 'reserved@example.com', event });
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'reserved_event' })]);
    }
    expect(await given.api.dataSource.query(`SELECT 1 FROM contacts WHERE email = 'reserved@example.com'`)).toHaveLength(0);
    expect((await track({ email: 'reserved@example.com', event: 'segment-ish.entry' })).status).toBe(200);
  });

  it('validates the body with field errors', async () => {
    const answer = await track({ email: 'nope', event: '' });
    expect(answer.status).toBe(422);
    const fields = answer.body.error.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`);
    expect(fields).toEqual(expect.arrayContaining(['email:invalid_string', 'event:required']));
  });

  it('performs a request once per Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'track-once' };
    const first = await track({ email: 'idem@example.com', event: 'paid' }, given.project.secretKey, headers);
    const again = await track({ email: 'idem@example.com', event: 'paid' }, given.project.secretKey, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await eventsOf(first.body.data.contact)).toHaveLength(1);
  });

  it('keeps /events/track for secret keys only', async () => {
    expect((await given.client.post('/events/track', { email: 'a@example.com', event: 'x' }, { key: given.project.publicKey })).status).toBe(401);
    const answer = await given.client.post('/events/track', { email: 'a@example.com', event: 'x' }, { key: given.project.secretKey });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
  });

  it('publishes every stored event, tracked or SYSTEM, to the dispatcher exactly once', async () => {
    const seen: EventRecord[] = [];
    const unsubscribe = given.api.dispatcher.subscribe((events) => {
      seen.push(...events.filter((event) => event.projectId === given.project.id));
    });
    try {
      await track({ email: 'dispatch@example.com', event: 'first', subscribed: false });
      await track({ email: 'dispatch@example.com', event: 'second', subscribed: true });
      await track({ email: 'dispatch@example.com', event: 'email.sent' });
      // Delivery follows the answer (deliveries start at least 50 ms apart): wait for it, then for any second one.
      await until(async () => seen.length, (count) => count >= 3, 'the delivery of the tracked events', 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      unsubscribe();
    }
    expect(seen.map((event) => event.name)).toEqual(['first', 'contact.subscribed', 'second']);
    expect(new Set(seen.map((event) => event.id)).size).toBe(3);
    const stored = await given.api.dataSource.query('SELECT id FROM events WHERE project_id = $1', [given.project.id]);
    expect(stored.map((row: { id: string }) => row.id).sort()).toEqual(seen.map((event) => event.id).sort());
  });

  it('lists, counts, names and deletes events', async () => {
    const key = given.project.secretKey;
    const contact = (await track({ email: 'reader@example.com', event: 'viewed' })).body.data.contact;
    await track({ email: 'reader@example.com', event: 'viewed' });
    await track({ email: 'other@example.com', event: 'clicked' });

    const first = await given.client.get('/events?limit=2', { key });
    expect(first.body).toEqual({ data: expect.any(Array), cursor: expect.any(String), hasMore: true, total: 3 });
    expect(first.body.data[0]).toEqual({ id: expect.any(String), name: 'clicked', contactId: expect.any(String), data: {}, source: 'API', createdAt: expect.any(String) });
    const second = await given.client.get(`/events?limit=2&cursor=${first.body.cursor}`, { key });
    expect(second.body).toEqual(expect.objectContaining({ hasMore: false, total: 0 }));
    expect(second.body.data).toHaveLength(1);
    expect((await given.client.get('/events?name=viewed', { key })).body.total).toBe(2);

    const stats = await given.client.get('/events/stats', { key });
    expect(stats.body).toEqual({ total: 3, last24h: 3, last7d: 3, last30d: 3, byName: [{ name: 'viewed', count: 2 }, { name: 'clicked', count: 1 }] });
    const names = await given.client.get('/events/names', { key });
    expect(names.body.data).toEqual([
      { name: 'viewed', count: 2, lastSeenAt: expect.any(String) },
      { name: 'clicked', count: 1, lastSeenAt: expect.any(String) },
    ]);
    const ofContact = await given.client.get(`/events/contact/${contact}`, { key });
    expect(ofContact.body.total).toBe(2);
    expect((await given.client.get('/events/contact/00000000-0000-0000-0000-000000000000', { key })).status).toBe(404);
    expect((await given.client.get('/events/viewed/usage', { key })).body).toEqual({ name: 'viewed', workflows: [], segments: [], campaigns: [] });

    const other = (await signupWithProject(given.api)).project.secretKey;
    expect((await given.client.get('/events', { key: other })).body.total).toBe(0);
    expect((await given.client.get(`/events/contact/${contact}`, { key: other })).status).toBe(404);
    expect((await given.client.delete('/events/viewed', { key: other })).body).toEqual({ deleted: 0 });

    expect((await given.client.delete('/events/viewed', { key })).body).toEqual({ deleted: 2 });
    expect((await given.client.get('/events', { key })).body.total).toBe(1);
  });
});
