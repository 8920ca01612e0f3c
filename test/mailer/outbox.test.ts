import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { OutboxMessage } from '../../src/entities/outbox-message';
import { listOutboxMessages, OutboxMailer } from '../../src/mailer/outbox';
import type { OutgoingMessage } from '../../src/mailer/types';
import { outboxRouter } from '../../src/routes/outbox';

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
  it('stores the message with its exact fields and returns the generated message id', async () => {
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
      tags: { ignored: 'yes' },
    });

    expect(sent.messageId).toMatch(/^<[0-9a-f-]{36}@herald\.outbox>$/);
    const rows = await dataSource.getRepository(OutboxMessage).findBy({ messageId: sent.messageId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
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

  it('stores a message without reply-to, headers or attachments as null and empty', async () => {
    const sent = await mailer.send(messageTo(recipient('bare')));

    const row = await dataSource.getRepository(OutboxMessage).findOneByOrFail({ messageId: sent.messageId });
    expect(row).toMatchObject({ replyTo: null, headers: {}, attachments: [] });
  });
});

describe('listOutboxMessages', () => {
  it('lists newest first, filtered by recipient (case-insensitive, display names too), up to the limit', async () => {
    const to = recipient('lin');
    await mailer.send(messageTo(to, 'first'));
    await mailer.send({ ...messageTo(`Lin <${to.toUpperCase()}>`, 'second') });
    await mailer.send(messageTo(recipient('other'), 'not for lin'));
    await mailer.send(messageTo(to, 'third'));

    const all = await listOutboxMessages(dataSource, { limit: 10, to });
    const two = await listOutboxMessages(dataSource, { limit: 2, to: to.toUpperCase() });

    expect(all.map((m) => m.subject)).toEqual(['third', 'second', 'first']);
    expect(two.map((m) => m.subject)).toEqual(['third', 'second']);
  });
});

describe('GET /outbox', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express().use(outboxRouter({ dataSource }));
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/outbox`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers the stored messages as JSON, newest first', async () => {
    const to = recipient('mo');
    const first = await mailer.send(messageTo(to, 'first'));
    const second = await mailer.send({
      ...messageTo(to, 'second'),
      replyTo: 'help@herald.test',
      headers: { 'X-A': '1' },
      attachments: [{ filename: 'b.bin', content: Buffer.alloc(3), contentType: 'application/octet-stream' }],
    });

    const response = await fetch(`${url}?to=${encodeURIComponent(to)}`);
    const body = (await response.json()) as { data: Record<string, unknown>[] };

    expect(response.status).toBe(200);
    expect(body.data.map((m) => m.messageId)).toEqual([second.messageId, first.messageId]);
    expect(body.data[0]).toEqual({
      id: expect.any(String),
      messageId: second.messageId,
      from: 'Herald <no-reply@herald.test>',
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

  it('returns 50 messages by default and at most 200', async () => {
    const to = recipient('bulk');
    const row = { messageId: '<bulk@herald.outbox>', from: 'a@herald.test', to: [to], subject: 's', html: 'h', text: 't' };
    await dataSource.getRepository(OutboxMessage).insert(Array.from({ length: 205 }, () => ({ ...row })));

    const count = async (query: string) => {
      const body = (await (await fetch(`${url}?to=${to}${query}`)).json()) as { data: unknown[] };
      return body.data.length;
    };

    expect(await count('')).toBe(50);
    expect(await count('&limit=7')).toBe(7);
    expect(await count('&limit=1000')).toBe(200);
    expect(await count('&limit=nonsense')).toBe(50);
  });
});
