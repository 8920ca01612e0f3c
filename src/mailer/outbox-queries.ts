import type { DataSource } from 'typeorm';
import { OutboxMessage } from '../entities/outbox-message';

/** Who is reading the outbox: a signed-in user. */
export interface OutboxReader {
  userId: string;
  email: string;
  emailVerified: boolean;
}

/** What a reader asks of the outbox: how many messages, and optionally one recipient. */
export interface OutboxQuery {
  limit: number;
  /** Only messages with this recipient (case-insensitive; `Name <address>` entries match by address). */
  to?: string;
}

/** Stores a message the outbox transport keeps. */
export async function insertOutboxMessage(dataSource: DataSource, message: Omit<OutboxMessage, 'id' | 'createdAt'>): Promise<void> {
  await dataSource.getRepository(OutboxMessage).insert(message);
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
