import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { insertOutboxMessage } from './outbox-queries';
import type { Mailer, OutgoingMessage, SentMessage } from './types';

/** Keeps every message in `outbox_messages`; nothing leaves the machine. */
export class OutboxMailer implements Mailer {
  readonly transport = 'outbox' as const;

  constructor(private readonly dataSource: DataSource) {}

  /** Stores the message (attachments as name, type and size only) and returns its generated id. */
  async send(message: OutgoingMessage): Promise<SentMessage> {
    const messageId = `<${randomUUID()}@herald.outbox>`;
    await insertOutboxMessage(this.dataSource, {
      messageId,
      from: message.from,
      projectId: message.tags?.projectId ?? null,
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
