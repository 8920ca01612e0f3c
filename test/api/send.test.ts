import { WorkflowNotFoundError } from '@temporalio/client';
import PostalMime from 'postal-mime';
import { projectWithVerifiedDomain, type Client, type TestApi } from '../support/api';
import { emailTag, type SesServer } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { until } from '../support/wait';

/** Polls the email records until all exist and none is QUEUED; answers them ordered by address. */
const settled = (api: TestApi, ids: string[]) =>
  until(
    () => api.dataSource.query('SELECT * FROM emails WHERE id = ANY($1::uuid[]) ORDER BY to_email', [ids]),
    (rows) => rows.length === ids.length && rows.every((row: { status: string }) => row.status !== 'QUEUED'),
    'no email to be QUEUED',
  );

describe('POST /v1/send through SES', () => {
  let ses: SesServer;
  let stack: SesStack;
  let api: TestApi;
  let client: Client;
  let key: string;
  let projectId: string;
  let domain: string;

  beforeAll(async () => {
    stack = await startSesStack({ TEMPORAL_TASK_QUEUE: 'send-test' });
    ({ api, client, ses } = stack);
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(api);
    ({ key, domain } = created);
    projectId = created.project.id;
  });

  const from = () => `hello@mail.${domain}`;
  const send = (body: Record<string, unknown>, headers?: Record<string, string>) => client.post('/v1/send', { from: from(), ...body }, { key, headers });
  const sentTo = (emailId: string) => ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);

  it('renders and delivers to each recipient, creating unsubscribed contacts', async () => {
    const answer = await send({
      to: ['ada@example.com', { name: 'Bob B', email: 'bob@example.com' }],
      subject: 'Hi {{ name ?? "there" }}',
      body: '<p>Hello {{ name ?? "friend" }}, your plan is {{plan}}.</p>',
      data: { plan: 'pro', name: null },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: {
        emails: [
          { contact: { id: expect.any(String), email: 'ada@example.com' }, email: expect.any(String), status: 'QUEUED' },
          { contact: { id: expect.any(String), email: 'bob@example.com' }, email: expect.any(String), status: 'QUEUED' },
        ],
        timestamp: expect.any(String),
      },
    });
    const ids = answer.body.data.emails.map((e: { email: string }) => e.email);
    const rows = await settled(api, ids);
    expect(rows.map((row: { status: string }) => row.status)).toEqual(['SENT', 'SENT']);
    for (const row of rows) {
      const [captured] = sentTo(row.id);
      expect(captured.messageId).toBe(row.message_id);
      const simple = captured.request.Content.Simple!;
      expect(simple.Subject.Data).toBe('Hi there');
      expect(simple.Body.Html!.Data).toBe('<p>Hello friend, your plan is pro.</p>');
      expect(simple.Body.Text!.Data).toContain('Hello friend, your plan is pro.');
    }
    expect(sentTo(ids[1])[0].request.Destination!.ToAddresses).toEqual(['"Bob B" <bob@example.com>']);
    const contacts = await api.dataSource.query('SELECT email, subscribed, data FROM contacts WHERE project_id = $1 ORDER BY email', [projectId]);
    expect(contacts).toEqual([
      { email: 'ada@example.com', subscribed: false, data: { plan: 'pro' } },
      { email: 'bob@example.com', subscribed: false, data: { plan: 'pro' } },
    ]);
    const events = await api.dataSource.query(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name = 'email.sent'`, [projectId]);
    expect(events[0].n).toBe(2);
    // Delivered by the send lanes of the API's task queue, not by a workflow of its own.
    const queued = await api.dataSource.query('SELECT send_queue, send_lane FROM emails WHERE id = ANY($1) ORDER BY id', [ids]);
    expect(queued).toEqual([
      { send_queue: 'send-test', send_lane: expect.any(Number) },
      { send_queue: 'send-test', send_lane: expect.any(Number) },
    ]);
    await expect(stack.temporal.client.workflow.getHandle(`email/${ids[0]}`).describe()).rejects.toThrow(WorkflowNotFoundError);
  });

  it('HTML-escapes data in HTML and Markdown bodies, outputs | raw as it is, and leaves subject and text part alone', async () => {
    const link = '<a href="https://evil.test">win</a>';
    const escaped = '&lt;a href=&#34;https://evil.test&#34;&gt;win&lt;/a&gt;';
    const data = { 'first name': link, bio: link, nickname: null };
    const html = await send({
      to: 'escape-html@example.com',
      subject: 'About {{ bio }}',
      body: "<p>{{ bio }}|{{first name}}|{{data['first name']}}|{{ nickname ?? bio }}|{{ bio | raw }}</p>",
      data,
    });
    const markdown = await send({ to: 'escape-md@example.com', subject: 'x', type: 'markdown', body: "Hi **{{data['first name']}}**, {{ nickname ?? bio }}", data });
    const ids = [html, markdown].map((answer) => answer.body.data.emails[0].email);
    await settled(api, ids);
    const [htmlMail, markdownMail] = ids.map((id) => sentTo(id)[0].request.Content.Simple!);
    expect(htmlMail.Subject.Data).toBe(`About ${link}`);
    expect(htmlMail.Body.Html!.Data).toBe(`<p>${[escaped, escaped, escaped, escaped, link].join('|')}</p>`);
    expect(htmlMail.Body.Text!.Data).toContain(`${link}|${link}`);
    expect(markdownMail.Body.Html!.Data).toBe(`<p>Hi <strong>${escaped}</strong>, ${escaped}</p>\n`);
  });

  it('validates the whole request before any recipient is processed', async () => {
    const answer = await send({ to: ['first@example.com', 'not-an-address'], subject: 'x', body: 'y' });
    expect(answer.status).toBe(422);
    expect(answer.body.error.errors).toEqual([expect.objectContaining({ field: 'to[1]', code: 'invalid_string' })]);
    const cases: Record<string, unknown>[] = [
      { to: 'a@example.com', subject: 'line\nbreak', body: 'x' },
      { to: 'a@example.com', subject: 'x'.repeat(999), body: 'x' },
      { to: 'a@example.com', body: 'x' },
      { to: 'a@example.com', subject: 'x', body: 'x', headers: { 'X-Bad\r\nName': 'v' } },
      { to: 'a@example.com', subject: 'x', body: 'x', headers: { 'X-Long': 'v'.repeat(999) } },
      { to: 'a@example.com', subject: 'x', body: 'x', attachments: Array.from({ length: 11 }, (_, i) => ({ filename: `${i}.txt`, content: 'aGk=' })) },
      { to: 'a@example.com', subject: 'x', body: '{% if %}' },
      { to: 'a@example.com', subject: 'x', body: 'x', reply: 'nope' },
    ];
    for (const body of cases) expect((await send(body)).status).toBe(422);
    expect(await api.dataSource.query('SELECT 1 FROM contacts WHERE project_id = $1', [projectId])).toHaveLength(0);
    expect(await api.dataSource.query('SELECT 1 FROM emails WHERE project_id = $1', [projectId])).toHaveLength(0);
  });

  it('refuses custom headers that name recipients or identity with a 422 naming the header, and stores nothing', async () => {
    const reserved = ['Bcc', 'cc', 'TO', 'From', 'sender', 'Reply-To', 'Return-Path', 'message-id', 'Date', 'MIME-Version', 'Content-Type', 'List-Unsubscribe', 'list-unsubscribe-post', 'X-SES-CONFIGURATION-SET', 'x-ses-message-tags'];
    for (const name of reserved) {
      const answer = await send({ to: 'a@example.com', subject: 'x', body: 'y', headers: { 'X-Fine': 'ok', [name]: 'victim@example.org' } });
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error.errors).toEqual([
        { field: `headers.${name}`, code: 'reserved_header', message: expect.stringContaining(`The ${name} header cannot be set`) },
      ]);
    }
    const replyTo = await send({ to: 'a@example.com', subject: 'x', body: 'y', headers: { 'reply-to': 'r@example.org' } });
    expect(replyTo.body.error.errors[0].message).toContain('use the `reply` field');
    expect(await api.dataSource.query('SELECT 1 FROM emails WHERE project_id = $1', [projectId])).toHaveLength(0);
    expect(ses.emails.filter((captured) => JSON.stringify(captured.request).includes('victim@example.org'))).toHaveLength(0);
  });

  it('refuses a from on an unverified domain with 403 and stores nothing', async () => {
    const answer = await client.post('/v1/send', { from: 'me@unverified.example.org', to: 'a@example.com', subject: 'x', body: 'y' }, { key });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(answer.body.error.message).toContain('unverified.example.org');
    expect(await api.dataSource.query('SELECT 1 FROM contacts WHERE project_id = $1', [projectId])).toHaveLength(0);
  });

  it('retries a throttled SES call until it is delivered, exactly once', async () => {
    ses.failNext(2, 429, 'TooManyRequestsException');
    const answer = await send({ to: 'throttled@example.com', subject: 'Throttled', body: 'x' });
    const [row] = await settled(api, [answer.body.data.emails[0].email]);
    expect(row.status).toBe('SENT');
    expect(row.attempts).toBe(3);
    expect(sentTo(row.id)).toHaveLength(1);
  });

  it('retries a 500 from SES', async () => {
    ses.failNext(1, 500, 'InternalFailure');
    const answer = await send({ to: 'flaky@example.com', subject: 'Flaky', body: 'x' });
    const [row] = await settled(api, [answer.body.data.emails[0].email]);
    expect(row.status).toBe('SENT');
    expect(sentTo(row.id)).toHaveLength(1);
  });

  it('marks a permanent failure FAILED without retrying it', async () => {
    ses.failNext(1, 400, 'MessageRejected', 'Email address is not verified.');
    const answer = await send({ to: 'rejected@example.com', subject: 'Rejected', body: 'x' });
    const emailId = answer.body.data.emails[0].email;
    const [row] = await settled(api, [emailId]);
    expect(row.status).toBe('FAILED');
    expect(row.attempts).toBe(1);
    expect(row.error).toContain('not verified');
    expect(sentTo(emailId)).toHaveLength(0);
    const events = await api.dataSource.query(`SELECT data FROM events WHERE project_id = $1 AND name = 'email.failed'`, [projectId]);
    expect(events).toEqual([{ data: expect.objectContaining({ emailId }) }]);
  });

  it('performs a request once per Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `send-${projectId}` };
    const first = await send({ to: 'idem@example.com', subject: 'Once', body: 'x' }, headers);
    const again = await send({ to: 'idem@example.com', subject: 'Once', body: 'x' }, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(409);
    expect(await api.dataSource.query('SELECT 1 FROM emails WHERE project_id = $1', [projectId])).toHaveLength(1);
  });

  it('does not send to a suppressed address, but does send to an unsubscribed contact', async () => {
    await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'bounced@example.com', 'BOUNCE')`, [projectId]);
    await client.post('/contacts', { email: 'optout@example.com', subscribed: false }, { key });
    const answer = await send({ to: ['bounced@example.com', 'optout@example.com'], subject: 'x', body: 'y' });
    const [suppressed, unsubscribed] = answer.body.data.emails;
    expect(suppressed.status).toBe('SUPPRESSED');
    await settled(api, [unsubscribed.email]);
    expect(sentTo(suppressed.email)).toHaveLength(0);
    expect(sentTo(unsubscribed.email)).toHaveLength(1);
  });

  it('suppresses "a@b"@example.com under a DOMAIN suppression of example.com, in /v1/send and in a campaign alike', async () => {
    expect((await client.post('/suppressions', { domain: 'example.com' }, { key })).status).toBe(201);
    const answer = await send({ to: ['"a@b"@example.com', 'ok@example.org'], subject: 'x', body: 'y' });
    expect(answer.body.data.emails.map((email: { contact: { email: string }; status: string }) => [email.contact.email, email.status])).toEqual([
      ['"a@b"@example.com', 'SUPPRESSED'],
      ['ok@example.org', 'QUEUED'],
    ]);

    const campaign = await client.post(
      '/campaigns',
      { name: 'Quoted', subject: 'News', body: '<p>News</p>', from: from(), type: 'TRANSACTIONAL', audienceType: 'ALL' },
      { key },
    );
    expect((await client.post(`/campaigns/${campaign.body.data.id}/send`, {}, { key })).status).toBe(200);
    const [row] = await until(
      () => api.dataSource.query('SELECT status, total_recipients FROM campaigns WHERE id = $1', [campaign.body.data.id]),
      (rows) => rows[0].status === 'SENT',
      'the campaign to be SENT',
    );
    expect(row.total_recipients).toBe(1);
    expect(await api.dataSource.query('SELECT to_email FROM emails WHERE campaign_id = $1', [campaign.body.data.id])).toEqual([{ to_email: 'ok@example.org' }]);
  });

  it('uses a template with overrides, and gives MARKETING mail an unsubscribe link and one-click headers', async () => {
    const [template] = await api.dataSource.query(
      `INSERT INTO templates (project_id, name, subject, body, "from", from_name, type)
       VALUES ($1, 'Welcome', 'Welcome {{first name}}', '<p>Hi {{ data[''first name''] }}</p>', $2, 'Team', 'MARKETING') RETURNING id`,
      [projectId, from()],
    );
    const answer = await client.post('/v1/send', { to: 'tpl@example.com', template: template.id, data: { 'first name': 'Ada' } }, { key });
    expect(answer.status).toBe(200);
    const emailId = answer.body.data.emails[0].email;
    await settled(api, [emailId]);
    const [captured] = sentTo(emailId);
    const simple = captured.request.Content.Simple;
    const parsed = simple ? undefined : await PostalMime.parse(captured.raw!);
    const subject = simple?.Subject.Data ?? parsed!.subject;
    const html = simple?.Body.Html!.Data ?? parsed!.html!;
    const headers = simple?.Headers ?? parsed!.headers.map((h) => ({ Name: h.key, Value: h.value }));
    expect(subject).toBe('Welcome Ada');
    expect(html).toContain('<p>Hi Ada</p>');
    expect(html).toMatch(/\/unsubscribe\/[^"]+">Unsubscribe<\/a>/);
    const byName = Object.fromEntries(headers.map((h) => [h.Name.toLowerCase(), h.Value]));
    expect(byName['list-unsubscribe']).toMatch(/^<http.*\/unsubscribe\/.+>$/);
    expect(byName['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

    const override = await client.post('/v1/send', { to: 'tpl@example.com', template: template.id, subject: 'Override' }, { key });
    await settled(api, [override.body.data.emails[0].email]);
    const [overridden] = sentTo(override.body.data.emails[0].email);
    expect(overridden.request.Content.Simple?.Subject.Data ?? (await PostalMime.parse(overridden.raw!)).subject).toBe('Override');
  });

  it('sends attachments and custom headers as raw MIME, and converts markdown bodies', async () => {
    const answer = await send({
      to: 'files@example.com',
      subject: 'Files',
      body: '# Report\n\nSee **attached**.',
      type: 'markdown',
      reply: 'replies@example.com',
      headers: { 'X-Campaign': 'q3' },
      attachments: [{ filename: 'report.txt', content: Buffer.from('quarterly numbers').toString('base64'), contentType: 'text/plain' }],
    });
    const emailId = answer.body.data.emails[0].email;
    await settled(api, [emailId]);
    const [captured] = sentTo(emailId);
    expect(captured.raw).toBeDefined();
    const parsed = await PostalMime.parse(captured.raw!);
    expect(parsed.html).toContain('<h1>Report</h1>');
    expect(parsed.html).toContain('<strong>attached</strong>');
    expect(parsed.text).toContain('attached');
    expect(parsed.replyTo?.[0].address).toBe('replies@example.com');
    expect(parsed.headers.find((h) => h.key === 'x-campaign')?.value).toBe('q3');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0].filename).toBe('report.txt');
    expect(Buffer.from(parsed.attachments[0].content as ArrayBuffer).toString()).toBe('quarterly numbers');
  });

  it('stores the body, headers, one-off data and attachments of a request once, and renders them for each recipient', async () => {
    const to = ['share-1@example.com', 'share-2@example.com', 'share-3@example.com'];
    const pdf = Buffer.alloc(64 * 1024, 7);
    const answer = await send({
      to,
      subject: 'Report',
      body: '<p>For {{ email }}: {{ code }}</p>',
      headers: { 'X-Report': 'q3' },
      data: { code: { value: 'C-42', persistent: false } },
      attachments: [{ filename: 'report.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' }],
    });
    const ids = answer.body.data.emails.map((e: { email: string }) => e.email);
    await settled(api, ids);

    const contents = await api.dataSource.query(
      `SELECT c.id, octet_length(c.body) AS body_bytes, (SELECT count(*)::int FROM email_attachments a WHERE a.content_id = c.id) AS attachments
         FROM email_contents c WHERE c.project_id = $1`,
      [projectId],
    );
    expect(contents).toEqual([{ id: expect.any(String), body_bytes: 34, attachments: 1 }]);
    const emails = await api.dataSource.query('SELECT body, content_id, headers, variables FROM emails WHERE id = ANY($1::uuid[])', [ids]);
    expect(emails).toEqual(Array(3).fill({ body: null, content_id: contents[0].id, headers: {}, variables: {} }));
    for (const [i, id] of ids.entries()) {
      const parsed = await PostalMime.parse(sentTo(id)[0].raw!);
      expect(parsed.html?.trim()).toBe(`<p>For ${to[i]}: C-42</p>`);
      expect(parsed.headers.find((h) => h.key === 'x-report')?.value).toBe('q3');
      expect(Buffer.from(parsed.attachments[0].content as ArrayBuffer).equals(pdf)).toBe(true);
    }
  });
});
