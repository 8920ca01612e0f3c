import escapeHtml from 'escape-html';
import PostalMime from 'postal-mime';
import type { Address, Email, Mailbox } from 'postal-mime';
import type { SMTPServerEnvelope } from 'smtp-server';
import { unstorable } from '../http/json-body';
import { reservedHeaderMessage } from '../sending/reserved-headers';
import { parseSendRequest, type SendRequest } from '../sending/send-request';
import { smtpReply } from './relay-replies';

/** A parsed SMTP message as a `/v1/send` request, with the `Idempotency-Key` header it carried. */
export interface RelayedMessage {
  request: SendRequest;
  idempotencyKey: string | undefined;
}

/** Headers of a message that travel on to every recipient (the rest are Herald's to write, or trace headers). */
const KEPT_HEADERS = /^(x-.+|in-reply-to|references|auto-submitted|precedence|importance|priority|keywords|comments)$/;
const MAX_HEADER_VALUE = 998;
/** Total header bytes a message may carry across its MIME parts. */
const MAX_HEADERS_BYTES = 256 * 1024;
/** A MIME type as `/v1/send` takes it; a part of another type is sent as application/octet-stream. */
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
/** MIME nesting a message may use. */
const MAX_NESTING = 32;

/** Every mailbox of address headers, groups unwrapped. */
function mailboxes(addresses: Address[] | undefined): Mailbox[] {
  return (addresses ?? []).flatMap((address) => (address.group ? address.group : [address]));
}

/** A plain-text body as HTML that shows it as written: escaped, line breaks and spacing kept. */
function textAsHtml(text: string): string {
  return `<div style="white-space:pre-wrap">${escapeHtml(text)}</div>`;
}

/** The custom headers that travel on, each within the limits `/v1/send` sets; the first of a repeated name wins. */
function keptHeaders(parsed: Email): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { key, originalKey, value } of parsed.headers) {
    if (!KEPT_HEADERS.test(key) || key === 'idempotency-key' || reservedHeaderMessage(key)) continue;
    if (Object.keys(headers).some((name) => name.toLowerCase() === key)) continue;
    const oneLine = value.replace(/\s*[\r\n]+\s*/g, ' ').trim();
    if (oneLine && oneLine.length <= MAX_HEADER_VALUE && /^[!-9;-~]+$/.test(originalKey)) headers[originalKey] = oneLine;
  }
  return headers;
}

/** Parses the message; a message the parser refuses (hostile nesting or headers, not MIME at all) gets 554. */
async function parse(raw: Buffer): Promise<Email> {
  try {
    return await PostalMime.parse(raw, { attachmentEncoding: 'base64', maxHeadersSize: MAX_HEADERS_BYTES, maxNestingDepth: MAX_NESTING });
  } catch (err) {
    throw smtpReply(554, `Message refused: it could not be read as MIME (${(err as Error).message})`);
  }
}

/**
 * Maps an SMTP message to the request body `/v1/send` takes and validates it with the same
 * parser, so that both front doors accept the same things. Recipients are the envelope's
 * (RCPT TO decides who receives: To, Cc and Bcc alike, each their own email record), with
 * the display names the headers give them; the sender is the From header (else MAIL FROM).
 * Subject and bodies are sent exactly as written (`literal`: never read as Liquid); the text part and
 * inline images (by Content-ID) travel with the HTML.
 */
export async function relayedMessage(raw: Buffer, envelope: SMTPServerEnvelope): Promise<RelayedMessage> {
  const parsed = await parse(raw);
  const named = new Map(mailboxes([...(parsed.to ?? []), ...(parsed.cc ?? [])]).map((box) => [box.address.toLowerCase(), box.name]));
  const to = envelope.rcptTo.map(({ address }) => {
    const name = named.get(address.toLowerCase());
    return name ? { email: address, name } : address;
  });
  const [fromHeader] = mailboxes(parsed.from ? [parsed.from] : undefined);
  const from = fromHeader ? { email: fromHeader.address, ...(fromHeader.name ? { name: fromHeader.name } : {}) } : envelope.mailFrom ? envelope.mailFrom.address : undefined;
  if (!from) throw smtpReply(553, 'Message refused: it has neither a From header nor an envelope sender');
  const subject = (parsed.subject ?? '').replace(/\s*[\r\n]+\s*/g, ' ').trim() || '(no subject)';
  const text = parsed.text ?? '';
  const html = parsed.html ?? (text ? textAsHtml(text) : '');
  const [replyTo] = mailboxes(parsed.replyTo);
  const idempotencyKey = parsed.headers.find((header) => header.key === 'idempotency-key')?.value.trim();
  const body = {
    to,
    from,
    subject: subject.slice(0, 998),
    body: html || ' ',
    headers: keptHeaders(parsed),
    ...(replyTo ? { reply: replyTo.address } : {}),
    attachments: parsed.attachments.map((attachment, i) => ({
      // Mail clients name files freely: line breaks and excess length are trimmed rather than refused.
      filename: (attachment.filename ?? '').replace(/[\r\n]+/g, ' ').trim().slice(0, 255) || `attachment-${i + 1}`,
      contentType: MIME_TYPE.test(attachment.mimeType) ? attachment.mimeType : 'application/octet-stream',
      content: attachment.content as string,
    })),
  };
  // What Postgres cannot store (a NUL character, a lone surrogate) is refused as /v1/send's JSON edge refuses it.
  const problem = unstorable({ ...body, ...(text ? { text } : {}) });
  if (problem) throw smtpReply(554, `Message refused: ${problem.message}`);
  const request = parseSendRequest(body);
  const cids = parsed.attachments.map((attachment) => attachment.contentId?.replace(/^<|>$/g, '') || undefined);
  return {
    request: {
      ...request,
      literal: true,
      ...(text ? { text } : {}),
      attachments: request.attachments.map((attachment, i) => (cids[i] ? { ...attachment, cid: cids[i] } : attachment)),
    },
    idempotencyKey,
  };
}
