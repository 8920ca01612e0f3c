import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type { SMTPServerEnvelope } from 'smtp-server';
import { composeMessage } from '../../src/sending/compose';
import type { SendRequest } from '../../src/sending/send-request';
import { relayedMessage } from '../../src/smtp-relay/relay-message';

const envelope = (from: string, to: string[]): SMTPServerEnvelope => ({
  mailFrom: { address: from, args: false },
  rcptTo: to.map((address) => ({ address, args: false })),
});
const compose = (options: Mail.Options) => new MailComposer(options).compile().build();
/** The message delivery composes for a relayed request, with a contact whose data would fill any Liquid. */
const delivered = (request: SendRequest) =>
  composeMessage(
    { tokenSecret: 'secret', publicUrl: 'http://localhost' },
    { id: 'e', projectId: 'p', toEmail: 'a@example.com', toName: null, from: 'app@example.com', fromName: null, replyTo: null, subject: request.subject!, headers: {}, variables: {}, type: 'TRANSACTIONAL', body: request.body!, text: request.text, literal: request.literal },
    { id: 'c', data: { name: 'N', total: 3, x: true } },
    [],
  );

describe('relayedMessage: an SMTP message as a /v1/send request', () => {
  it('takes the recipients from the envelope (Bcc included), with the names the headers give them', async () => {
    const raw = await compose({ from: '"App" <app@example.com>', to: '"Ada L" <ada@example.com>', cc: 'carl@example.com', subject: 'Hi', html: '<p>x</p>' });
    const { request } = await relayedMessage(raw, envelope('bounce@example.com', ['ada@example.com', 'carl@example.com', 'hidden@example.com']));
    expect(request.to).toEqual([{ email: 'ada@example.com', name: 'Ada L' }, { email: 'carl@example.com' }, { email: 'hidden@example.com' }]);
    expect(request.from).toEqual({ email: 'app@example.com', name: 'App' });
  });

  it('keeps subject and body as written (literal, never read as Liquid): Liquid in them is sent as itself', async () => {
    const html = "<p>{{ name }} {% if x %} {{ '{%' }} {% endraw %} {% raw %}</p>";
    const raw = await compose({ from: 'app@example.com', to: 'a@example.com', subject: 'Total {{ total }} {% if', html });
    const { request } = await relayedMessage(raw, envelope('app@example.com', ['a@example.com']));
    expect(request).toMatchObject({ literal: true, subject: 'Total {{ total }} {% if' });
    expect(request.body?.trim()).toBe(html);
    const message = await delivered(request);
    expect(message.subject).toBe('Total {{ total }} {% if');
    expect(message.html.trim()).toBe(html);
  });

  it('shows a text-only message as written in its HTML part, escaped, and keeps the text part', async () => {
    const raw = await compose({ from: 'app@example.com', to: 'a@example.com', subject: 'Alert', text: 'disk <90%> full\n  at /var' });
    const { request } = await relayedMessage(raw, envelope('app@example.com', ['a@example.com']));
    const message = await delivered(request);
    expect(message.html).toContain('disk &lt;90%&gt; full\n  at /var');
    expect((request as { text?: string }).text?.trim()).toBe('disk <90%> full\n  at /var');
  });

  it('passes custom and threading headers on, drops trace and identity headers, and reads Idempotency-Key', async () => {
    const raw = await compose({
      from: 'app@example.com',
      to: 'a@example.com',
      subject: 'x',
      text: 'y',
      headers: { 'X-Ref': 'r-1', 'In-Reply-To': '<m@x>', Received: 'from somewhere', 'Idempotency-Key': 'k-1', 'List-Unsubscribe': '<https://x>', 'X-Long': 'v'.repeat(1200) },
    });
    const { request, idempotencyKey } = await relayedMessage(raw, envelope('app@example.com', ['a@example.com']));
    expect(request.headers).toEqual({ 'X-Ref': 'r-1', 'In-Reply-To': '<m@x>' });
    expect(idempotencyKey).toBe('k-1');
  });

  it('sends an attachment whose name or type /v1/send would refuse, trimmed and as application/octet-stream', async () => {
    const raw = Buffer.from(
      [
        'From: app@example.com',
        'To: a@example.com',
        'Subject: files',
        'Content-Type: multipart/mixed; boundary=b',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'see attached',
        '--b',
        `Content-Type: weird; name="${'n'.repeat(300)}.txt"`,
        'Content-Disposition: attachment',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('hello').toString('base64'),
        '--b--',
        '',
      ].join('\r\n'),
    );
    const { request } = await relayedMessage(raw, envelope('app@example.com', ['a@example.com']));
    expect(request.attachments).toEqual([{ filename: 'n'.repeat(255), contentType: 'application/octet-stream', content: Buffer.from('hello') }]);
  });

  it('refuses a message with no sender (553) or hostile headers (554) with an SMTP reply', async () => {
    const none = await relayedMessage(Buffer.from('Subject: x\r\n\r\nbody'), { mailFrom: false, rcptTo: [{ address: 'a@example.com', args: false }] }).catch((err) => err);
    expect(none).toMatchObject({ responseCode: 553 });
    const bomb = Buffer.from(`From: a@example.com\r\nX-Junk: ${'a'.repeat(300 * 1024)}\r\n\r\nbody`);
    const refused = await relayedMessage(bomb, envelope('a@example.com', ['b@example.com'])).catch((err) => err);
    expect(refused).toMatchObject({ responseCode: 554, message: expect.stringContaining('could not be read as MIME') });
  });

  it('refuses a message whose text Postgres cannot store (a NUL character) with 554, naming the part', async () => {
    const nul = Buffer.from('From: a@example.com\r\nSubject: x\r\nContent-Type: text/plain\r\n\r\nbefore\u0000after');
    const refused = await relayedMessage(nul, envelope('a@example.com', ['b@example.com'])).catch((err) => err);
    expect(refused).toMatchObject({ responseCode: 554, message: expect.stringMatching(/^Message refused: .*NUL character/) });
    const html = Buffer.from('From: a@example.com\r\nSubject: x\r\nContent-Type: text/html\r\n\r\n<p>a\u0000b</p>');
    expect(await relayedMessage(html, envelope('a@example.com', ['b@example.com'])).catch((err) => err)).toMatchObject({ responseCode: 554 });
  });
});
