import type { DataSource } from 'typeorm';
import { listOutboxMessages, type OutboxQuery, type OutboxReader } from './outbox-queries';

/** Reading what the outbox transport kept (`GET /outbox`). */
export class OutboxService {
  constructor(private readonly dataSource: DataSource) {}

  /** The most recent messages the reader may see, newest first, as the API shows them. */
  async list(reader: OutboxReader, query: OutboxQuery) {
    const messages = await listOutboxMessages(this.dataSource, reader, query);
    return messages.map((m) => ({
      id: m.id,
      projectId: m.projectId,
      messageId: m.messageId,
      from: m.from,
      to: m.to,
      replyTo: m.replyTo,
      subject: m.subject,
      html: m.html,
      text: m.text,
      headers: m.headers,
      attachments: m.attachments,
      createdAt: m.createdAt.toISOString(),
    }));
  }
}
