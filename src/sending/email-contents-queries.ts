import type { EntityManager } from 'typeorm';
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

/** Stores the parts every recipient of one request shares, once; answers the content's id for their email records. */
export async function storeContent(manager: EntityManager, projectId: string, parts: EmailParts): Promise<string> {
  const { body, text, literal, headers, variables, attachments } = parts;
  const { id: contentId } = await manager.save(manager.create(EmailContent, { projectId, body, text: text ?? null, literal: literal ?? false, headers, variables }));
  if (attachments.length > 0) {
    await manager.insert(EmailAttachment, attachments.map(({ filename, contentType, content, cid }, position) => ({ contentId, position, filename, contentType, content, cid: cid ?? null })));
  }
  return contentId;
}

/** The parts of an email: its own (no attachments), or those of the content it shares, attachments in order. */
export async function loadParts(manager: EntityManager, email: Pick<Email, 'body' | 'contentId' | 'headers' | 'variables'>): Promise<EmailParts> {
  if (email.contentId === null) return { body: email.body!, headers: email.headers, variables: email.variables, attachments: [] };
  const { body, text, literal, headers, variables } = await manager.findOneByOrFail(EmailContent, { id: email.contentId });
  const attachments = await manager.find(EmailAttachment, { where: { contentId: email.contentId }, order: { position: 'ASC' } });
  return {
    body,
    text,
    ...(literal ? { literal } : {}),
    headers,
    variables,
    attachments: attachments.map(({ filename, contentType, content, cid }) => ({ filename, contentType, content, ...(cid ? { cid } : {}) })),
  };
}
