import { until } from '../support/wait';
import { startReceiver, verifyHook, type Receiver } from './receiver';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

describe('product events delivered to a receiver', () => {
  let hooks: WebhookStack;
  let receiver: Receiver;

  beforeAll(async () => {
    [hooks, receiver] = await Promise.all([startWebhookStack('webhooks_sources'), startReceiver()]);
  });
  afterAll(async () => {
    await hooks?.close();
    await receiver?.close();
  });

  it('posts contact.created and email.suppressed from real API requests, signed, with their data, once each', async () => {
    const project = await hooks.project();
    const path = `/sources-${project.id}`;
    const endpoint = await hooks.client.post('/webhooks', { url: `${receiver.url}${path}`, events: ['contact.created', 'email.suppressed'] }, { key: project.key });
    expect(endpoint.status).toBe(201);
    const domain = `${project.id}.example.com`;
    await hooks.api.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, domain]);
    await hooks.api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'blocked@example.com', 'BOUNCE')`, [project.id]);

    const contact = await hooks.client.post('/contacts', { email: 'ada@example.com', data: { plan: 'pro' } }, { key: project.key });
    expect(contact.status).toBe(201);
    const sent = await hooks.client.post('/v1/send', { from: `hello@${domain}`, to: 'blocked@example.com', subject: 'Receipt', body: '<p>Thanks</p>' }, { key: project.key });
    expect(sent.status).toBe(200);
    const [email] = sent.body.data.emails;

    const received = await until(
      async () => receiver.received.filter((hook) => hook.path === path),
      (hooksAt) => hooksAt.length >= 3,
      'the three events at the receiver',
    );
    const bodies = received.map((hook) => verifyHook(endpoint.body.secret, hook) as { type: string; timestamp: string; data: { email?: string } });
    const order = (body: (typeof bodies)[number]) => `${body.type} ${body.data.email ?? ''}`;
    expect(bodies.sort((a, b) => order(a).localeCompare(order(b)))).toEqual([
      {
        type: 'contact.created',
        timestamp: expect.any(String),
        data: { contactId: contact.body.id, email: 'ada@example.com', subscribed: true, data: { plan: 'pro' } },
      },
      // `/v1/send` created its recipient's contact, unsubscribed.
      {
        type: 'contact.created',
        timestamp: expect.any(String),
        data: { contactId: email.contact.id, email: 'blocked@example.com', subscribed: false, data: {} },
      },
      {
        type: 'email.suppressed',
        timestamp: expect.any(String),
        data: { emailId: email.email, contactId: email.contact.id, to: 'blocked@example.com', subject: 'Receipt' },
      },
    ]);
    expect(new Set(received.map((hook) => hook.id)).size).toBe(3);
  });
});
