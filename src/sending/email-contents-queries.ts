import { randomUUID } from 'node:crypto';
import { In, type EntityManager } from 'typeorm';
import { type Email, EmailAttachment, EmailContent } from '../entities/email';
import type { OutgoingAttachment } from '../mailer/types';

/** What rendering an email reads besides its recipient and sender: body, custom headers, one-off variables, attachments. */
export interface EmailParts {
  body: string;
  /** A plain-text part sent as it is; absent or null: made from the rendered HTML. */
  text?: string | null;
  /** Subject and body sent exactly as written, never read as Liquid (SMTP relay messages). */
  literal?: boolean;
  headers: Record<string, string>;
  variables: Record<string, unknown>;
  attachments: OutgoingAttachment[];
}

/** Stores, for each request, the parts its recipients share (ids made here), in two statements however many; answers the contents' ids, in order, for their email records. */
export async function storeContents(manager: EntityManager, contents: { projectId: string; parts: EmailParts }[]): Promise<string[]> {
  if (contents.length === 0) return [];
  const ids = contents.map(() => randomUUID());
  await manager.query(
    `INSERT INTO email_contents (id, project_id, body, text, literal, headers, variables)
     SELECT id, project_id, body, text, literal, headers, variables
       FROM jsonb_to_recordset($1::jsonb) AS c(id uuid, project_id uuid, body text, text text, literal boolean, headers jsonb, variables jsonb)`,
    [
      JSON.stringify(
        contents.map(({ projectId, parts: { body, text, literal, headers, variables } }, i) => ({
          id: ids[i],
          project_id: projectId,
          body,
          text: text ?? null,
          literal: literal ?? false,
          headers,
          variables,
        })),
      ),
    ],
  );
  const attachments = contents.flatMap(({ parts }, i) =>
    parts.attachments.map(({ filename, contentType, content, cid }, position) => ({ contentId: ids[i], position, filename, contentType, content, cid: cid ?? null })),
  );
  if (attachments.length > 0) await manager.insert(EmailAttachment, attachments);
  return ids;
}

/** The parts of an email: its own (no attachments), or those of the content it shares, attachments in order. */
export async function loadParts(manager: EntityManager, email: Pick<Email, 'body' | 'contentId' | 'headers' | 'variables'>): Promise<EmailParts> {
  const shared = email.contentId === null ? new Map<string, EmailParts>() : await loadContents(manager, [email.contentId]);
  return partsOf(email, shared);
}

/** The parts of an email among those of contents loaded together (loadContents). */
export function partsOf(email: Pick<Email, 'body' | 'contentId' | 'headers' | 'variables'>, contents: Map<string, EmailParts>): EmailParts {
  if (email.contentId === null) return { body: email.body!, headers: email.headers, variables: email.variables, attachments: [] };
  const parts = contents.get(email.contentId);
  if (!parts) throw new Error(`email content ${email.contentId} does not exist`);
  return parts;
}

/** The shared parts of the contents `contentIds`, by id, attachments in order: two statements however many. */
export async function loadContents(manager: EntityManager, contentIds: string[]): Promise<Map<string, EmailParts>> {
  const ids = [...new Set(contentIds)];
  if (ids.length === 0) return new Map();
  const contents = await manager.find(EmailContent, { where: { id: In(ids) } });
  const attachments = await manager.find(EmailAttachment, { where: { contentId: In(ids) }, order: { contentId: 'ASC', position: 'ASC' } });
  return new Map(
    contents.map(({ id, body, text, literal, headers, variables }) => [
      id,
      {
        body,
        text,
        ...(literal ? { literal } : {}),
        headers,
        variables,
        attachments: attachments
          .filter((attachment) => attachment.contentId === id)
          .map(({ filename, contentType, content, cid }) => ({ filename, contentType, content, ...(cid ? { cid } : {}) })),
      },
    ]),
  );
}
