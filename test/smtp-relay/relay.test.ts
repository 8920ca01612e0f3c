import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import PostalMime from 'postal-mime';
import { generate } from 'selfsigned';
import { projectWithVerifiedDomain, type Client } from '../support/api';
import { emailTag } from '../support/ses-server';
import { until, withinOneMinute } from '../support/wait';
import { composeCore } from '../../src/composition';
import { openDatabase } from '../../src/db/data-source';
import { startSmtpRelay } from '../../src/smtp-relay/relay-start';
import { generatedTlsFile, tlsMaterial } from '../../src/smtp-relay/relay-tls';
import { rawAuthenticated, relayTransport, replyCode, startRelayStack, type RelayStack } from './relay-stack';

/** A 1x1 PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const RATE_LIMIT = 5;

/** An email record as the tests read it. */
interface EmailRow {
  id: string;
  to_email: string;
  status: string;
  contact_id: string;
}

describe('SMTP relay', () => {
  let stack: RelayStack;
  let client: Client;
  let key: string;
  let publicKey: string;
  let projectId: string;
  let domain: string;

  beforeAll(async () => {
    stack = await startRelayStack({ TEMPORAL_TASK_QUEUE: 'smtp-relay-test', RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) });
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(stack.api);
    ({ key, domain, client } = created);
    publicKey = created.project.publicKey;
    projectId = created.project.id;
  });

  const from = () => `app@mail.${domain}`;
  const rows = (sql: string) => stack.api.dataSource.query(sql, [projectId]);
  /** The project's email records once there are `count` and none is QUEUED, ordered by recipient. */
  const settledEmails = (count: number) =>
    until(
      (): Promise<EmailRow[]> => rows('SELECT id, to_email, status, contact_id FROM emails WHERE project_id = $1 ORDER BY to_email'),
      (emails) => emails.length === count && emails.every((email) => email.status !== 'QUEUED'),
      `${count} emails, none QUEUED`,
    );
  const capturedFor = (emailId: string) => stack.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);

  it('authenticates herald with the secret key; a public, unknown or rotated key and another username get 535', async () => {
    await expect(relayTransport(stack, key).verify()).resolves.toBe(true);
    expect(await replyCode(relayTransport(stack, publicKey).verify())).toBe(535);
    expect(await replyCode(relayTransport(stack, `sk_${randomBytes(20).toString('hex')}`).verify())).toBe(535);
    expect(await replyCode(relayTransport(stack, key, { user: 'admin' }).verify())).toBe(535);

    // A connection that authenticated before the keys were regenerated cannot send its next message.
    const kept = relayTransport(stack, key, { pool: true });
    await kept.sendMail({ from: from(), to: 'before@example.com', subject: 'Before', text: 'sent' });
    const rotated = await client.post(`/users/@me/projects/${projectId}/regenerate-keys`);
    expect(rotated.status).toBe(200);
    expect(await replyCode(kept.sendMail({ from: from(), to: 'after@example.com', subject: 'After', text: 'not sent' }))).toBe(535);
    kept.close();
    expect(await replyCode(relayTransport(stack, key).verify())).toBe(535);
    await expect(relayTransport(stack, rotated.body.secretKey).verify()).resolves.toBe(true);
    expect((await rows('SELECT to_email FROM emails WHERE project_id = $1')).map((row: { to_email: string }) => row.to_email)).toEqual(['before@example.com']);
  });

  it('offers STARTTLS with the self-signed pair generated under DATA_DIR (key file 0600, the same pair on restart)', async () => {
    await expect(relayTransport(stack, key).verify()).resolves.toBe(true);
    const stranger = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256' });
    const refused = await relayTransport(stack, key, { ca: stranger.cert }).verify().then(() => 'trusted', (err: Error) => err.message);
    expect(refused).toMatch(/certificate/i);
    const file = generatedTlsFile(stack.api.config.dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await tlsMaterial(stack.api.config.smtpRelay, stack.api.config.dataDir);
    expect(stack.certificate).toContain(again.cert.trim());
  });

  it('takes AUTH in clear from loopback (the decision for other addresses is tested in relay-auth.test.ts)', async () => {
    await expect(relayTransport(stack, key, { plain: true }).verify()).resolves.toBe(true);
  });

  it('refuses a sender domain the project has not verified with 550 and stores nothing', async () => {
    const transport = relayTransport(stack, key);
    expect(await replyCode(transport.sendMail({ from: 'me@unverified.example.org', to: 'a@example.com', subject: 'x', text: 'y' }))).toBe(550);
    // The From header is checked too when the envelope's sender is on a verified domain.
    const header = transport.sendMail({ from: 'me@unverified.example.org', envelope: { from: from(), to: ['a@example.com'] }, subject: 'x', text: 'y' });
    const refusal = await header.catch((err: Error & { responseCode?: number }) => err);
    expect((refusal as { responseCode?: number }).responseCode).toBe(550);
    expect((refusal as Error).message).toContain('unverified.example.org is not verified');
    expect(await rows('SELECT 1 FROM emails WHERE project_id = $1')).toHaveLength(0);
    expect(await rows('SELECT 1 FROM contacts WHERE project_id = $1')).toHaveLength(0);
  });

  it('takes at most 50 recipients: the 51st RCPT TO gets 452 and the 50 others are sent', async () => {
    const to = Array.from({ length: 51 }, (_, i) => `r${String(i).padStart(2, '0')}@example.com`);
    const info = await relayTransport(stack, key).sendMail({ from: from(), to, subject: 'Many', text: 'hello' });
    expect(info.accepted).toHaveLength(50);
    expect(info.rejected).toEqual(['r50@example.com']);
    expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 452 });
    const emails = await settledEmails(50);
    expect(emails.map((email) => email.to_email)).toEqual(to.slice(0, 50));
  });

  it('sends To, Cc and Bcc each their own email with the HTML and text parts, attachment and inline image; the Bcc appears nowhere else', async () => {
    const html = '<p>Hello {{ name }}, see <img src="cid:logo@herald"> and {% this %}</p>';
    const text = 'Hello {{ name }}, plain text part';
    const info = await relayTransport(stack, key).sendMail({
      from: { name: 'The App', address: from() },
      to: { name: 'Ada To', address: 'ada@example.com' },
      cc: 'carl@example.com',
      bcc: 'hidden@example.com',
      replyTo: 'support@example.com',
      subject: 'Report {{ month }}',
      html,
      text,
      headers: { 'X-App-Ref': 'r-1', 'In-Reply-To': '<earlier@app.example>' },
      attachments: [
        { filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
        { filename: 'logo.png', content: PIXEL, contentType: 'image/png', cid: 'logo@herald' },
      ],
    });
    expect(info.response).toMatch(/^250 OK: 3 queued/);
    const emails = await settledEmails(3);
    expect(emails.map((email) => [email.to_email, email.status])).toEqual([
      ['ada@example.com', 'SENT'],
      ['carl@example.com', 'SENT'],
      ['hidden@example.com', 'SENT'],
    ]);
    const contacts = await rows('SELECT id, email, subscribed FROM contacts WHERE project_id = $1 ORDER BY email');
    expect(contacts.map(({ email, subscribed }: { email: string; subscribed: boolean }) => [email, subscribed])).toEqual([
      ['ada@example.com', false],
      ['carl@example.com', false],
      ['hidden@example.com', false],
    ]);
    expect(emails.map((email) => email.contact_id)).toEqual(contacts.map((contact: { id: string }) => contact.id));
    const sentEvents = await rows(`SELECT contact_id FROM events WHERE project_id = $1 AND name = 'email.sent' ORDER BY contact_id`);
    expect(sentEvents.map((event: { contact_id: string }) => event.contact_id).sort()).toEqual(contacts.map((contact: { id: string }) => contact.id).sort());

    for (const email of emails) {
      const [captured] = capturedFor(email.id);
      expect(captured.request.Destination?.ToAddresses?.map((address) => address.toLowerCase())).toEqual([expect.stringContaining(email.to_email)]);
      const raw = captured.raw!;
      const parsed = await PostalMime.parse(raw);
      expect(parsed.to?.map((address) => address.address)).toEqual([email.to_email]);
      expect(parsed.cc).toBeUndefined();
      expect(parsed.subject).toBe('Report {{ month }}');
      expect(parsed.html?.trim()).toBe(html);
      expect(parsed.text?.trim()).toBe(text);
      expect(parsed.replyTo?.map((address) => address.address)).toEqual(['support@example.com']);
      expect(parsed.headers.find((header) => header.key === 'x-app-ref')?.value).toBe('r-1');
      expect(parsed.inReplyTo).toBe('<earlier@app.example>');
      const files = [...parsed.attachments].sort((a, b) => String(a.filename).localeCompare(String(b.filename)));
      expect(files.map((a) => [a.filename, a.mimeType, a.contentId ?? null, a.related ?? false])).toEqual([
        ['logo.png', 'image/png', '<logo@herald>', true],
        ['report.csv', 'text/csv', null, false],
      ]);
      expect(Buffer.from(files[0].content as ArrayBuffer)).toEqual(PIXEL);
      expect(Buffer.from(files[1].content as ArrayBuffer).toString()).toBe('a,b\n1,2\n');
      if (email.to_email !== 'hidden@example.com') expect(raw.toString('latin1')).not.toContain('hidden@example.com');
    }
  });

  it('skips a suppressed recipient and sends to the others', async () => {
    await rows(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'bounced@example.com', 'BOUNCE')`);
    const info = await relayTransport(stack, key).sendMail({ from: from(), to: ['bounced@example.com', 'fine@example.com'], subject: 'Hi', text: 'there' });
    expect(info.response).toContain('1 queued, 1 suppressed');
    const emails = await settledEmails(2);
    expect(emails.map((email) => [email.to_email, email.status])).toEqual([
      ['bounced@example.com', 'SUPPRESSED'],
      ['fine@example.com', 'SENT'],
    ]);
    expect(capturedFor(emails[0].id)).toHaveLength(0);
    expect(capturedFor(emails[1].id)).toHaveLength(1);
  });

  it('accepts a message whose Idempotency-Key was used before without sending it again; the key is the project\'s, as on /v1/send', async () => {
    const transport = relayTransport(stack, key);
    const message = { from: from(), to: 'once@example.com', subject: 'Once', text: 'only once', headers: { 'Idempotency-Key': 'order-42' } };
    expect((await transport.sendMail(message)).response).toMatch(/^250 OK: 1 queued/);
    expect((await transport.sendMail(message)).response).toContain('accepted before; not sent again');
    const emails = await settledEmails(1);
    expect(capturedFor(emails[0].id)).toHaveLength(1);
    const http = await client.post('/v1/send', { from: from(), to: 'once@example.com', subject: 'x', body: 'y' }, { key, headers: { 'Idempotency-Key': 'order-42' } });
    expect(http.status).toBe(409);
  });

  it('leaves an Idempotency-Key free when its send did not commit, so the client\'s retry is sent', async () => {
    // With the project's emails cap used up, the send's transaction claims the key, then finds the cap reached and rolls back.
    await rows('INSERT INTO billing_limits (project_id, emails) VALUES ($1, 0)');
    const message = { from: from(), to: 'retry@example.com', subject: 'Retry', text: 'once', headers: { 'Idempotency-Key': 'retry-7' } };
    try {
      expect(await replyCode(relayTransport(stack, key).sendMail(message))).toBe(452);
    } finally {
      await rows('DELETE FROM billing_limits WHERE project_id = $1');
    }
    expect(await rows('SELECT 1 FROM emails WHERE project_id = $1')).toHaveLength(0);
    expect((await relayTransport(stack, key).sendMail(message)).response).toMatch(/^250 OK: 1 queued/);
    const [email] = await settledEmails(1);
    expect(email.status).toBe('SENT');
  });

  it('refuses a message over 40 MB with 552, and attachments over the /v1/send limit with 552', async () => {
    const transport = relayTransport(stack, key);
    const huge = Buffer.alloc(41 * 1024 * 1024, 7);
    expect(await replyCode(transport.sendMail({ from: from(), to: 'big@example.com', subject: 'Big', text: 'x', attachments: [{ filename: 'big.bin', content: huge }] }))).toBe(552);
    const over = Buffer.alloc(11 * 1024 * 1024, 7);
    expect(await replyCode(transport.sendMail({ from: from(), to: 'big@example.com', subject: 'Big', text: 'x', attachments: [{ filename: 'big.bin', content: over }] }))).toBe(552);
    expect(await rows('SELECT 1 FROM emails WHERE project_id = $1')).toHaveLength(0);
  });

  it('counts messages in the project\'s /v1/send rate limit: past it, 451', async () => {
    // The limit is counted per clock minute: every message and the MAIL FROM after them fall into one.
    await withinOneMinute(10);
    const transport = relayTransport(stack, key, { pool: true });
    const codes: number[] = [];
    for (let i = 0; i < 2 * RATE_LIMIT + 1; i += 1) {
      codes.push(await replyCode(transport.sendMail({ from: from(), to: `rl${i}@example.com`, subject: 'x', text: 'y' })));
    }
    transport.close();
    expect(codes).toContain(451);
    expect(codes.filter((code) => code === 250).length).toBeLessThanOrEqual(2 * RATE_LIMIT);
    // Refused at MAIL FROM, before any of the message is read.
    const { smtp, auth } = await rawAuthenticated(stack.relay.port, key);
    expect(auth).toMatch(/^235 /);
    expect(await smtp.say(`MAIL FROM:<${from()}>`)).toMatch(/^451 .*Rate limit/);
    smtp.close();
  });

  it('sends a 20 MB HTML part full of {% exactly as written, while the API on the same process keeps answering', async () => {
    const html = 'a{%b '.repeat(4 * 1024 * 1024);
    const sending = relayTransport(stack, key).sendMail({ from: from(), to: 'big-liquid@example.com', subject: 'Raw {{ x }} {% if y %}', html, text: 'short text' });
    let settled = false;
    void sending.then(() => (settled = true), () => (settled = true));
    const health: number[] = [];
    while (!settled || health.length === 0) health.push((await client.get('/health')).status);
    expect((await sending).response).toMatch(/^250 OK: 1 queued/);
    expect(health.every((status) => status === 200)).toBe(true);
    const [email] = await settledEmails(1);
    expect(email.status).toBe('SENT');
    const sent = capturedFor(email.id)[0].request.Content?.Simple;
    expect(sent?.Subject?.Data).toBe('Raw {{ x }} {% if y %}');
    expect(sent?.Body?.Html?.Data?.trim() === html.trim()).toBe(true);
    expect(sent?.Body?.Text?.Data?.trim()).toBe('short text');
    const [stored] = await rows('SELECT c.literal, e.subject FROM emails e JOIN email_contents c ON c.id = e.content_id WHERE e.project_id = $1');
    expect(stored).toEqual({ literal: true, subject: 'Raw {{ x }} {% if y %}' });
  });

  it('refuses junk with a reply and keeps serving', async () => {
    const transport = relayTransport(stack, key);
    const raw = Buffer.concat([Buffer.from(`From: ${from()}\r\nTo: junk@example.com\r\n`), randomBytes(4096)]);
    const junk = await replyCode(transport.sendMail({ envelope: { from: from(), to: ['junk@example.com'] }, raw }));
    expect([250, 554]).toContain(junk);
    await expect(transport.verify()).resolves.toBe(true);
  });

  it('stops start-up with one line naming the port when it is in use', async () => {
    const core = composeCore(stack.api.config, stack.api.dataSource, stack.temporal.client);
    await expect(startSmtpRelay(core, stack.relay.port)).rejects.toThrow(
      `SMTP relay: port ${stack.relay.port} is already in use; set SMTP_RELAY_PORT to a free port, or to off`,
    );
  });

  it('answers 454 when it cannot reach its database, and keeps running', async () => {
    const dataSource = await openDatabase(stack.api.config.databaseUrl!, 1);
    const relay = await startSmtpRelay(composeCore(stack.api.config, dataSource, stack.temporal.client), 0);
    await dataSource.destroy();
    try {
      const cut = { ...stack, relay };
      expect(await replyCode(relayTransport(cut, key).verify())).toBe(454);
      expect(await replyCode(relayTransport(cut, key).verify())).toBe(454);
    } finally {
      await relay.close();
    }
    await expect(relayTransport(stack, key).verify()).resolves.toBe(true);
  });
});
