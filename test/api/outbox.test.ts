import { randomUUID } from 'node:crypto';
import { OutboxMessage } from '../../src/entities/outbox-message';
import { OutboxMailer } from '../../src/mailer/outbox';
import type { OutgoingMessage } from '../../src/mailer/types';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

describe('GET /outbox (outbox transport)', () => {
  let api: TestApi;
  let mailer: OutboxMailer;
  let ada: Awaited<ReturnType<typeof signupWithProject>>;
  let bob: Awaited<ReturnType<typeof signupWithProject>>;

  /** A message as the sending engine hands it over: project mail carries its project in the tags. */
  const mail = (to: string, subject: string, projectId?: string): OutgoingMessage => ({
    from: 'News <news@herald.test>',
    to: [to],
    subject,
    html: `<p>${subject}</p>`,
    text: subject,
    ...(projectId ? { tags: { emailId: randomUUID(), projectId } } : {}),
  });
  const subjects = async (client: Client, query = '') => {
    const answer = await client.get(`/outbox${query}`);
    expect(answer.status).toBe(200);
    return (answer.body.data as { subject: string }[]).map((m) => m.subject);
  };
  const verify = (email: string) => api.dataSource.query('UPDATE users SET email_verified = true WHERE email = $1', [email]);

  beforeAll(async () => {
    api = await startApi();
    mailer = new OutboxMailer(api.dataSource);
    ada = await signupWithProject(api, 'Ada project');
    bob = await signupWithProject(api, 'Bob project');
  });
  afterAll(() => api.close());

  it('needs a session: 401 in the envelope, and no message, without one', async () => {
    await mailer.send(mail('someone@example.com', 'For nobody to read', ada.project.id));

    const answer = await new Client(api.url).get('/outbox');

    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', statusCode: 401 } });
  });

  it("shows a user only their projects' mail and their own account mail, never another user's password reset", async () => {
    await mailer.send(mail('customer@example.com', `Ada news ${ada.project.id}`, ada.project.id));
    await mailer.send(mail('customer@example.com', `Bob news ${bob.project.id}`, bob.project.id));
    expect((await new Client(api.url).post('/auth/request-password-reset', { email: bob.email })).status).toBe(200);

    const adaSees = await subjects(ada.client, '?limit=200');
    const bobSees = await subjects(bob.client, '?limit=200');

    expect(adaSees).toContain(`Ada news ${ada.project.id}`);
    expect(adaSees).not.toContain(`Bob news ${bob.project.id}`);
    expect(adaSees).not.toContain('Reset your Herald password');
    expect(bobSees).toEqual(expect.arrayContaining([`Bob news ${bob.project.id}`, 'Reset your Herald password', 'Verify your Herald email address']));
    expect(bobSees).not.toContain(`Ada news ${ada.project.id}`);
    const rows = await api.dataSource.getRepository(OutboxMessage).findBy({ subject: `Bob news ${bob.project.id}` });
    expect(rows.map((row) => row.projectId)).toEqual([bob.project.id]);
  });

  it("shows other projects' mail to the user's address only once that address is verified", async () => {
    const carol = await signupWithProject(api, 'Carol project');
    await mailer.send(mail(carol.email.toUpperCase(), `Receipt for Carol ${carol.project.id}`, ada.project.id));

    expect(await subjects(carol.client)).not.toContain(`Receipt for Carol ${carol.project.id}`);
    expect(await subjects(carol.client)).toContain('Verify your Herald email address');
    await verify(carol.email);
    expect(await subjects(carol.client)).toContain(`Receipt for Carol ${carol.project.id}`);
    expect(await subjects(ada.client, `?to=${encodeURIComponent(carol.email)}`)).toEqual([`Receipt for Carol ${carol.project.id}`]);
    expect(await subjects(bob.client, `?to=${encodeURIComponent(carol.email)}`)).toEqual([]);
  });

  it('answers every field of a message, newest first', async () => {
    const to = `fields-${randomUUID()}@example.com`;
    const first = await mailer.send(mail(to, 'first', ada.project.id));
    const second = await mailer.send({
      ...mail(to, 'second', ada.project.id),
      replyTo: 'help@herald.test',
      headers: { 'X-A': '1' },
      attachments: [{ filename: 'b.bin', content: Buffer.alloc(3), contentType: 'application/octet-stream' }],
    });

    const answer = await ada.client.get(`/outbox?to=${encodeURIComponent(to)}`);

    expect(answer.body.data.map((m: { messageId: string }) => m.messageId)).toEqual([second.messageId, first.messageId]);
    expect(answer.body.data[0]).toEqual({
      id: expect.any(String),
      projectId: ada.project.id,
      messageId: second.messageId,
      from: 'News <news@herald.test>',
      to: [to],
      replyTo: 'help@herald.test',
      subject: 'second',
      html: '<p>second</p>',
      text: 'second',
      headers: { 'X-A': '1' },
      attachments: [{ filename: 'b.bin', contentType: 'application/octet-stream', size: 3 }],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('returns 50 messages by default and at most 200; a limit that is not a number is a 400', async () => {
    const to = `bulk-${randomUUID()}@example.com`;
    const row = { messageId: '<bulk@herald.outbox>', projectId: ada.project.id, from: 'a@herald.test', to: [to], subject: 's', html: 'h', text: 't' };
    await api.dataSource.getRepository(OutboxMessage).insert(Array.from({ length: 205 }, () => ({ ...row })));
    const count = async (query: string) => ((await ada.client.get(`/outbox?to=${to}${query}`)).body.data as unknown[]).length;

    expect(await count('')).toBe(50);
    expect(await count('&limit=7')).toBe(7);
    expect(await count('&limit=1000')).toBe(200);
    const nonsense = await ada.client.get(`/outbox?limit=nonsense`);
    expect(nonsense.status).toBe(400);
    expect(nonsense.body.error).toMatchObject({ code: 'BAD_REQUEST', message: 'limit must be a whole number' });
  });
});
