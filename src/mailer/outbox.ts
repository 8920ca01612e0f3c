import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { OutboxMessage } from '../entities/outbox-message';
import type { Mailer, OutgoingMessage, SentMessage } from './types';

/** Keeps every message in `outbox_messages`; nothing leaves the machine. */
export class OutboxMailer implements Mailer {
  readonly transport = 'outbox' as const;

  constructor(private readonly dataSource: DataSource) {}

  /** Stores the message (attachments as name, type and size only) and returns its generated id. */
  async send(message: OutgoingMessage): Promise<SentMessage> {
    const messageId = `<${randomUUID()}@herald.outbox>`;
    await this.dataSource.getRepository(OutboxMessage).insert({
      messageId,
      from: message.from,
      to: message.to,
      replyTo: message.replyTo ?? null,
      subject: message.subject,
      html: message.html,
      text: message.text,
      headers: message.headers ?? {},
      attachments: (message.attachments ?? []).map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        size: a.content.length,
      })),
    });
    return { messageId };
  }
}

export interface OutboxQuery {
  limit: number;
  /** Only messages with this recipient (case-insensitive; `Name <address>` entries match by address). */
  to?: string;
}

/** The most recent outbox messages, newest first. */
export function listOutboxMessages(dataSource: DataSource, query: OutboxQuery): Promise<OutboxMessage[]> {
  const builder = dataSource
    .getRepository(OutboxMessage)
    .createQueryBuilder('m')
    .orderBy('m.createdAt', 'DESC')
    .addOrderBy('m.id', 'DESC')
    .limit(query.limit);
  if (query.to !== undefined) {
    builder.where(
      `EXISTS (SELECT 1 FROM unnest(m."to") AS r(address)
               WHERE lower(r.address) = lower(:to)
                  OR right(lower(r.address), length(:to) + 2) = '<' || lower(:to) || '>')`,
      { to: query.to },
    );
  }
  return builder.getMany();
}
