import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { OutboxMessage } from '../../src/entities/outbox-message';
import { OutboxMailer } from '../../src/mailer/outbox';
import { listOutboxMessages } from '../../src/mailer/outbox-queries';
import type { OutgoingMessage } from '../../src/mailer/types';

/** A recipient no other test uses, so rows written concurrently elsewhere do not interfere. */
const recipient = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.com`;

function messageTo(to: string, subject = 'Hello'): OutgoingMessage {
  return { from: 'Herald <no-reply@herald.test>', to: [to], subject, html: `<p>${subject}</p>`, text: subject };
}

let dataSource: DataSource;
let mailer: OutboxMailer;

beforeAll(async () => {
  dataSource = await createDataSource(process.env.DATABASE_URL!, 2).initialize();
  mailer = new OutboxMailer(dataSource);
});
afterAll(() => dataSource.destroy());

describe('OutboxMailer', () => {
  it('stores the message with its exact fields and project and returns the generated message id', async () => {
    const to = recipient('ada');
    const sent = await mailer.send({
      from: 'Herald <no-reply@herald.test>',
      to: [to, 'Grace <grace@example.com>'],
      replyTo: 'support@herald.test',
      subject: 'Welcome',
      html: '<p>Hi</p>',
      text: 'Hi',
      headers: { 'X-Herald-Email': 'e-1' },
      attachments: [{ filename: 'a.txt', content: Buffer.from('hello'), contentType: 'text/plain' }],
      configurationSet: 'ignored',
      tags: { emailId: 'e-1', projectId: '00000000-0000-4000-8000-000000000001' },
    });

    expect(sent.messageId).toMatch(/^<[0-9a-f-]{36}@herald\.outbox>$/);
    const rows = await dataSource.getRepository(OutboxMessage).findBy({ messageId: sent.messageId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: '00000000-0000-4000-8000-000000000001',
      messageId: sent.messageId,
      from: 'Herald <no-reply@herald.test>',
      to: [to, 'Grace <grace@example.com>'],
      replyTo: 'support@herald.test',
      subject: 'Welcome',
      html: '<p>Hi</p>',
      text: 'Hi',
      headers: { 'X-Herald-Email': 'e-1' },
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', size: 5 }],
      createdAt: expect.any(Date),
    });
  });

  it('stores a message without project, reply-to, headers or attachments as null and empty', async () => {
    const sent = await mailer.send(messageTo(recipient('bare')));

    const row = await dataSource.getRepository(OutboxMessage).findOneByOrFail({ messageId: sent.messageId });
    expect(row).toMatchObject({ projectId: null, replyTo: null, headers: {}, attachments: [] });
  });
});

describe('listOutboxMessages', () => {
  it('lists newest first, filtered by recipient (case-insensitive, display names too), up to the limit', async () => {
    const to = recipient('lin');
    const reader = { userId: randomUUID(), email: to, emailVerified: true };
    await mailer.send(messageTo(to, 'first'));
    await mailer.send({ ...messageTo(`Lin <${to.toUpperCase()}>`, 'second') });
    await mailer.send(messageTo(recipient('other'), 'not for lin'));
    await mailer.send(messageTo(to, 'third'));

    const all = await listOutboxMessages(dataSource, reader, { limit: 10, to });
    const two = await listOutboxMessages(dataSource, reader, { limit: 2, to: to.toUpperCase() });
    const unfiltered = await listOutboxMessages(dataSource, reader, { limit: 10 });

    expect(all.map((m) => m.subject)).toEqual(['third', 'second', 'first']);
    expect(two.map((m) => m.subject)).toEqual(['third', 'second']);
    expect(unfiltered.map((m) => m.subject)).toEqual(['third', 'second', 'first']);
  });
});
