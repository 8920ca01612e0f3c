import { emailTag } from '../support/ses-server';
import { useSesProject } from '../support/stack';
import { until } from '../support/wait';

describe('POST /v1/send/batch', () => {
  const given = useSesProject('send-batch-test');

  const item = (to: unknown, extra: Record<string, unknown> = {}) => ({ to, from: `hello@mail.${given.domain}`, subject: `To {{ email }}`, body: '<p>Hi</p>', ...extra });
  const batch = (body: unknown, headers?: Record<string, string>) => given.client.post('/v1/send/batch', body, { key: given.key, headers });
  const count = async (table: 'emails' | 'contacts' | 'email_contents') =>
    (await given.api.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [given.projectId]))[0].n as number;
  const sentTo = (emailId: string) => given.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);
  /** Waits until none of the project's emails is QUEUED; answers them by id. */
  const settled = async (timeoutMs?: number) => {
    const rows: { id: string; status: string; to_email: string }[] = await until(
      () => given.api.dataSource.query('SELECT id, status, to_email FROM emails WHERE project_id = $1', [given.projectId]),
      (found: { status: string }[]) => found.every((row) => row.status !== 'QUEUED'),
      'no email to be QUEUED',
      timeoutMs,
    );
    return new Map(rows.map((row) => [row.id, row]));
  };

  it('stores and sends every item, answering per item in the order sent', async () => {
    const addresses = ['b0@example.com', 'b1@example.com', 'b2@example.com'];
    const answer = await batch([item(addresses[0]), item([addresses[1], 'b1-cc@example.com']), item(addresses[2], { subject: 'Third' })]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: expect.any(Array), timestamp: expect.any(String) });
    const emails = answer.body.data.map((sent: { emails: { contact: { email: string }; status: string }[] }) => sent.emails.map((email) => [email.contact.email, email.status]));
    expect(emails).toEqual([[['b0@example.com', 'QUEUED']], [['b1@example.com', 'QUEUED'], ['b1-cc@example.com', 'QUEUED']], [['b2@example.com', 'QUEUED']]]);
    const rows = await settled();
    expect(rows.size).toBe(4);
    for (const [i, sent] of answer.body.data.entries()) {
      for (const email of sent.emails) {
        expect(rows.get(email.email)!.status).toBe('SENT');
        const [captured] = sentTo(email.email);
        expect(captured.request.Content.Simple!.Subject.Data).toBe(i === 2 ? 'Third' : `To ${email.contact.email}`);
      }
    }
  });

  it('refuses a batch with one bad item with 422 naming [index].field, storing and sending nothing', async () => {
    const items = [item('ok-0@example.com'), item('ok-1@example.com'), item('ok-2@example.com'), item('not-an-address'), item('ok-4@example.com', { scheduledAt: 'soon', headers: { Bcc: 'x@example.com' } })];
    const answer = await batch(items);
    expect([answer.status, answer.body.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(answer.body.error.errors.map((error: { field: string }) => error.field)).toEqual(['[3].to', '[4].headers.Bcc', '[4].scheduledAt']);
    expect(await count('emails')).toBe(0);
    expect(await count('contacts')).toBe(0);
    expect(await count('email_contents')).toBe(0);
    expect(given.ses.emails.filter((captured) => ['ok-0@example.com', 'ok-1@example.com'].some((to) => JSON.stringify(captured.request.Destination).includes(to)))).toHaveLength(0);
  });

  it('checks templates, Liquid and sender domains of every item before storing anything', async () => {
    const template = await batch([item('t-0@example.com'), item('t-1@example.com', { template: '00000000-0000-4000-8000-000000000000' }), item('t-2@example.com', { body: '{% if %}' })]);
    expect([template.status, template.body.error.errors.map((error: { field: string }) => error.field)]).toEqual([422, ['[1].template', '[2].body']]);
    const sender = await batch([item('s-0@example.com'), item('s-1@example.com', { from: 'hello@unverified.example' })]);
    expect(sender.status).toBe(403);
    expect(sender.body.error.message).toMatch(/^Batch item \[1\]: .*unverified\.example/);
    expect(sender.body.error.details).toMatchObject({ index: 1 });
    expect(await count('emails')).toBe(0);
    expect(await count('contacts')).toBe(0);
  });

  it('refuses what is not an array of 1 to 100 requests, and more than 1,000 recipients in all', async () => {
    for (const body of [{ to: 'a@example.com' }, [], Array.from({ length: 101 }, (_, i) => item(`n${i}@example.com`))]) {
      const answer = await batch(body);
      expect([answer.status, answer.body.error.errors[0].field]).toEqual([422, 'body']);
    }
    const hundred = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}${i}@example.com`);
    const wide = Array.from({ length: 11 }, (_, i) => item(hundred(`w${i}-`)));
    const answer = await batch(wide);
    expect([answer.status, answer.body.error.errors]).toEqual([422, [expect.objectContaining({ field: '[10].to', code: 'too_big' })]]);
    expect(await count('emails')).toBe(0);
  });

  it('holds the emails cap over the whole batch: past it, nothing of the batch is stored', async () => {
    expect((await given.owner.call('PUT', `/users/@me/projects/${given.projectId}/billing-limits`, { body: { emails: 2 } })).status).toBe(200);
    const answer = await batch([item('c0@example.com'), item('c1@example.com'), item('c2@example.com')]);
    expect([answer.status, answer.body.error.code]).toEqual([403, 'BILLING_LIMIT_EXCEEDED']);
    expect(await count('emails')).toBe(0);
    expect(await count('contacts')).toBe(0);
    expect((await batch([item('c0@example.com'), item('c1@example.com', { scheduledAt: new Date(Date.now() + 60_000).toISOString() })])).status).toBe(200);
    expect(await count('emails')).toBe(2);
  });

  it('stores and sends the largest batch, 100 items and 1,000 recipients, every email exactly once', async () => {
    const items = Array.from({ length: 100 }, (_, i) => item(Array.from({ length: 10 }, (_, j) => `big-${i}-${j}@example.com`)));
    const answer = await batch(items);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(100);
    expect(answer.body.data[99].emails.map((email: { contact: { email: string } }) => email.contact.email)).toEqual(
      Array.from({ length: 10 }, (_, j) => `big-99-${j}@example.com`),
    );
    // The first workflows started wait for the batch's commit: their record is missing until then.
    const rows = await settled(150_000);
    expect([...rows.values()].filter((row) => row.status === 'SENT')).toHaveLength(1000);
    for (const id of rows.keys()) expect(sentTo(id)).toHaveLength(1);
  }, 180_000);

  it('performs a batch once per Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': `batch-${given.projectId}` };
    const first = await batch([item('i0@example.com'), item('i1@example.com')], headers);
    expect(first.status).toBe(200);
    const again = await batch([item('i0@example.com'), item('i1@example.com')], headers);
    expect([again.status, again.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    const other = await given.client.post('/v1/send', item('i2@example.com'), { key: given.key, headers });
    expect(other.status).toBe(409);
    const rows = await settled();
    expect(rows.size).toBe(2);
    for (const id of rows.keys()) expect(sentTo(id)).toHaveLength(1);
  });

  it('answers a scheduled item SCHEDULED beside the items sent now', async () => {
    const answer = await batch([item('now@example.com'), item('later@example.com', { scheduledAt: new Date(Date.now() + 60_000).toISOString() })]);
    expect(answer.body.data.map((sent: { emails: { status: string }[] }) => sent.emails[0].status)).toEqual(['QUEUED', 'SCHEDULED']);
    const later = answer.body.data[1].emails[0].email;
    expect((await given.client.post(`/emails/${later}/cancel`, undefined, { key: given.key })).body.status).toBe('CANCELLED');
  });
});
