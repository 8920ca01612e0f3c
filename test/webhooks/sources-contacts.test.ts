import { signupWithProject } from '../support/api';
import { useSignedUpProject } from '../support/stack';
import { addEndpoint, deliveriesOf, recordedEvents, recordedOf } from './sources-support';

const CONTACT_TYPES = ['contact.created', 'contact.updated', 'contact.deleted', 'contact.subscribed', 'contact.unsubscribed'];

describe('contact.* webhook events from the contact writes', () => {
  const given = useSignedUpProject();
  let endpointId: string;

  beforeEach(async () => {
    endpointId = await addEndpoint(given.api.dataSource, given.project.id, CONTACT_TYPES);
  });

  const track = (body: unknown) => given.client.post('/v1/track', body, { key: given.project.publicKey });
  const contactsOf = () => recordedOf(given.api.dataSource, given.project.id, ...CONTACT_TYPES);

  it('records contact.created for a new contact with its address, subscription and data', async () => {
    const created = await given.client.post('/contacts', { email: 'New@Example.com', data: { plan: 'pro' } }, { key: given.project.secretKey });
    expect(created.status).toBe(201);
    expect(await contactsOf()).toEqual([
      {
        type: 'contact.created',
        data: { contactId: created.body.id, email: 'new@example.com', subscribed: true, data: { plan: 'pro' } },
        key: `contact:${created.body.id}:created`,
      },
    ]);
    expect(await deliveriesOf(given.api.dataSource, endpointId)).toEqual([{ type: 'contact.created', projectId: given.project.id }]);
  });

  it('records contact.updated for a track that changed data, and nothing for one that changed nothing', async () => {
    const first = await track({ email: 'tracked@example.com', event: 'signed-up', data: { plan: 'free' } });
    const contactId = first.body.data.contact;
    expect((await track({ email: 'tracked@example.com', event: 'visited', data: { plan: 'free' } })).status).toBe(200);
    expect((await track({ email: 'tracked@example.com', event: 'visited' })).status).toBe(200);
    expect((await track({ email: 'tracked@example.com', event: 'upgraded', data: { plan: 'pro', seats: 3 } })).status).toBe(200);
    expect((await contactsOf()).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'contact.created', data: { contactId, email: 'tracked@example.com', subscribed: true, data: { plan: 'free' } } },
      { type: 'contact.updated', data: { contactId, email: 'tracked@example.com', subscribed: true, data: { plan: 'pro', seats: 3 } } },
    ]);
  });

  it('records contact.updated and contact.unsubscribed for a subscription flip, and contact.updated for a new address', async () => {
    const created = await given.client.post('/contacts', { email: 'flip@example.com' }, { key: given.project.secretKey });
    const id = created.body.id;
    expect((await given.client.patch(`/contacts/${id}`, { subscribed: false }, { key: given.project.secretKey })).status).toBe(200);
    expect((await given.client.patch(`/contacts/${id}`, { subscribed: false }, { key: given.project.secretKey })).status).toBe(200);
    expect((await given.client.patch(`/contacts/${id}`, { email: 'moved@example.com' }, { key: given.project.secretKey })).status).toBe(200);
    const [unsubscribed] = await given.api.dataSource.query(`SELECT id FROM events WHERE contact_id = $1 AND name = 'contact.unsubscribed'`, [id]);
    const events = await contactsOf();
    expect(events.filter((event) => event.type !== 'contact.created')).toEqual([
      { type: 'contact.unsubscribed', data: { contactId: id, email: 'flip@example.com', subscribed: false, data: {} }, key: `event:${unsubscribed.id}` },
      { type: 'contact.updated', data: { contactId: id, email: 'flip@example.com', subscribed: false, data: {} }, key: null },
      { type: 'contact.updated', data: { contactId: id, email: 'moved@example.com', subscribed: false, data: {} }, key: null },
    ]);
  });

  it('records contact.deleted with the contact as it was', async () => {
    const created = await given.client.post('/contacts', { email: 'gone@example.com', data: { tier: 2 } }, { key: given.project.secretKey });
    expect((await given.client.delete(`/contacts/${created.body.id}`, { key: given.project.secretKey })).status).toBe(204);
    expect(await recordedOf(given.api.dataSource, given.project.id, 'contact.deleted')).toEqual([
      {
        type: 'contact.deleted',
        data: { contactId: created.body.id, email: 'gone@example.com', subscribed: true, data: { tier: 2 } },
        key: `contact:${created.body.id}:deleted`,
      },
    ]);
  });

  it('records only the types an endpoint subscribes to, and nothing for a project without endpoints', async () => {
    const narrow = (await signupWithProject(given.api)).project;
    await addEndpoint(given.api.dataSource, narrow.id, ['contact.deleted']);
    const bare = (await signupWithProject(given.api)).project;
    for (const key of [narrow.publicKey, bare.publicKey]) {
      expect((await given.client.post('/v1/track', { email: 'someone@example.com', event: 'x', data: { a: 1 } }, { key })).status).toBe(200);
      expect((await given.client.post('/v1/track', { email: 'someone@example.com', event: 'y', data: { a: 2 }, subscribed: false }, { key })).status).toBe(200);
    }
    expect(await recordedEvents(given.api.dataSource, narrow.id)).toEqual([]);
    expect(await recordedEvents(given.api.dataSource, bare.id)).toEqual([]);
  });

  it("never hands one project's events to another project's endpoint", async () => {
    const other = (await signupWithProject(given.api)).project;
    const otherEndpoint = await addEndpoint(given.api.dataSource, other.id, ['*']);
    expect((await track({ email: 'mine@example.com', event: 'x' })).status).toBe(200);
    expect((await given.client.post('/v1/track', { email: 'theirs@example.com', event: 'x' }, { key: other.publicKey })).status).toBe(200);
    expect(await deliveriesOf(given.api.dataSource, endpointId)).toEqual([{ type: 'contact.created', projectId: given.project.id }]);
    expect(await deliveriesOf(given.api.dataSource, otherEndpoint)).toEqual([{ type: 'contact.created', projectId: other.id }]);
  });
});
