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

/** Who is reading the outbox: a signed-in user. */
export interface OutboxReader {
  userId: string;
  email: string;
  emailVerified: boolean;
}

export interface OutboxQuery {
  limit: number;
  /** Only messages with this recipient (case-insensitive; `Name <address>` entries match by address). */
  to?: string;
}

/** SQL: whether message `m` has the recipient named by the parameter `:name` (case-insensitive; `Name <address>` too). */
const addressedTo = (name: string) =>
  `EXISTS (SELECT 1 FROM unnest(m."to") AS r(address)
           WHERE lower(r.address) = lower(:${name})
              OR right(lower(r.address), length(:${name}) + 2) = '<' || lower(:${name}) || '>')`;

/**
 * The most recent outbox messages the reader may see, newest first: mail of the projects
 * they are a member of, and mail to their own address (only Herald's account mail, such as
 * the verification link, until that address is verified).
 */
export function listOutboxMessages(dataSource: DataSource, reader: OutboxReader, query: OutboxQuery): Promise<OutboxMessage[]> {
  const builder = dataSource
    .getRepository(OutboxMessage)
    .createQueryBuilder('m')
    .where(
      `(m.project_id IN (SELECT pm.project_id FROM project_members pm WHERE pm.user_id = :userId)
        OR ((:verified OR m.project_id IS NULL) AND ${addressedTo('own')}))`,
      { userId: reader.userId, verified: reader.emailVerified, own: reader.email },
    )
    .orderBy('m.createdAt', 'DESC')
    .addOrderBy('m.id', 'DESC')
    .limit(query.limit);
  if (query.to !== undefined) builder.andWhere(addressedTo('to'), { to: query.to });
  return builder.getMany();
}
