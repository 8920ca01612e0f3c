import { isEmail, isISO8601 } from 'class-validator';
import { isPlainObject } from '../contacts/data-rules';
import { ApiError, validationError, type FieldError } from '../http/errors';
import { isUuid } from '../http/validate';
import { reservedHeaderMessage } from './reserved-headers';

/** One recipient of `/v1/send`. */
export interface Recipient {
  email: string;
  name?: string;
}

/** An attachment with its content decoded. */
export interface SendAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  /** The Content-ID an HTML body shows it by (`cid:`), for an inline image; set by the SMTP relay, not a `/v1/send` field. */
  cid?: string;
}

/** A validated `/v1/send` request. */
export interface SendRequest {
  to: Recipient[];
  subject?: string;
  body?: string;
  bodyIsMarkdown: boolean;
  from?: Recipient;
  template?: string;
  subscribed?: boolean;
  headers: Record<string, string>;
  replyTo?: string;
  attachments: SendAttachment[];
  /** A plain-text part sent as it is, instead of one made from the HTML; set by the SMTP relay, not a `/v1/send` field. */
  text?: string;
  /** Subject and body sent exactly as written, never read as Liquid; set by the SMTP relay, not a `/v1/send` field. */
  literal?: boolean;
  data: Record<string, unknown>;
  /** When to send; absent: at once. */
  scheduledAt?: Date;
}

export const MAX_RECIPIENTS = 100;
/** How far ahead `scheduledAt` may be. */
export const MAX_SCHEDULE_DAYS = 30;
/** Requests in one `/v1/send/batch` call. */
export const MAX_BATCH_REQUESTS = 100;
/** Recipients across the requests of one `/v1/send/batch` call: each becomes a record and a workflow start in one transaction. */
export const MAX_BATCH_RECIPIENTS = 1000;
/** An RFC 3339 date-time (seconds optional), with its offset: a time without one would be read in the server's zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 24 * 60 * 60 * 1000;
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const MAX_SUBJECT = 998;
const MAX_HEADER_VALUE = 998;
const HEADER_NAME = /^[!-9;-~]+$/;
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** Reads a `{ name, email }` or plain address; undefined when it is neither. */
function address(value: unknown): Recipient | undefined {
  if (typeof value === 'string') return isEmail(value.trim()) ? { email: value.trim() } : undefined;
  if (isPlainObject(value) && typeof value.email === 'string' && isEmail(value.email.trim())) {
    if (value.name !== undefined && typeof value.name !== 'string') return undefined;
    return { email: value.email.trim(), ...(value.name ? { name: value.name } : {}) };
  }
  return undefined;
}

/** A `scheduledAt` value as a time within the next MAX_SCHEDULE_DAYS days of `now`; a message saying why not otherwise. */
function scheduleTime(value: unknown, now: Date): Date | string {
  if (typeof value !== 'string' || !DATE_TIME.test(value) || !isISO8601(value, { strict: true })) {
    return 'scheduledAt must be an ISO 8601 date-time with an offset, e.g. 2026-01-01T09:00:00Z';
  }
  const at = new Date(value);
  if (at.getTime() <= now.getTime()) return 'scheduledAt must be in the future';
  if (at.getTime() > now.getTime() + MAX_SCHEDULE_DAYS * DAY_MS) return `scheduledAt may be at most ${MAX_SCHEDULE_DAYS} days ahead`;
  return at;
}

/**
 * Validates a whole `/v1/send` body before any recipient is processed; every problem is
 * reported at once as a 422 VALIDATION_ERROR. `now` is what `scheduledAt` must follow.
 */
export function parseSendRequest(body: unknown, now = new Date()): SendRequest {
  const input = isPlainObject(body) ? body : {};
  const errors: FieldError[] = [];
  const fail = (field: string, message: string, code = 'invalid', received?: unknown) =>
    errors.push({ field, message, code, ...(received !== undefined && typeof received !== 'object' ? { received } : {}) });

  const rawTo = input.to === undefined ? [] : Array.isArray(input.to) ? input.to : [input.to];
  if (input.to === undefined) fail('to', 'to is required', 'required');
  else if (rawTo.length === 0) fail('to', 'to needs at least one recipient', 'too_small');
  else if (rawTo.length > MAX_RECIPIENTS) fail('to', `to takes at most ${MAX_RECIPIENTS} recipients`, 'too_big');
  const to = rawTo.map((value, i) => {
    const recipient = address(value);
    if (!recipient) fail(Array.isArray(input.to) ? `to[${i}]` : 'to', 'Each recipient must be an email address or { name, email }', 'invalid_string', value);
    return recipient!;
  });

  const template = input.template;
  if (template !== undefined && (typeof template !== 'string' || !isUuid(template))) fail('template', 'template must be a template id (uuid)', 'invalid_string', template);

  const subject = input.subject;
  if (subject !== undefined && (typeof subject !== 'string' || subject.length < 1 || subject.length > MAX_SUBJECT)) {
    fail('subject', `subject must be 1 to ${MAX_SUBJECT} characters`, 'invalid_string');
  } else if (typeof subject === 'string' && /[\r\n]/.test(subject)) {
    fail('subject', 'subject may not contain newline characters', 'invalid_string');
  }
  const bodyText = input.body;
  if (bodyText !== undefined && (typeof bodyText !== 'string' || bodyText.length < 1)) fail('body', 'body must be a non-empty string', 'invalid_string');
  if (template === undefined) {
    if (subject === undefined) fail('subject', 'subject is required when no template is given', 'required');
    if (bodyText === undefined) fail('body', 'body is required when no template is given', 'required');
  }
  if (input.type !== undefined && input.type !== 'html' && input.type !== 'markdown') fail('type', 'type must be "html" or "markdown"', 'invalid_enum_value', input.type);

  let from = input.from === undefined ? undefined : address(input.from);
  if (input.from !== undefined && !from) fail('from', 'from must be an email address or { name, email }', 'invalid_string', input.from);
  if (input.name !== undefined && typeof input.name !== 'string') fail('name', 'name must be a string', 'invalid_type');
  if (from && typeof input.from === 'string' && typeof input.name === 'string' && input.name) from = { ...from, name: input.name };

  if (input.subscribed !== undefined && typeof input.subscribed !== 'boolean') fail('subscribed', 'subscribed must be a boolean', 'invalid_type');
  if (input.reply !== undefined && (typeof input.reply !== 'string' || !isEmail(input.reply.trim()))) fail('reply', 'reply must be an email address', 'invalid_string', input.reply);
  if (input.data !== undefined && input.data !== null && !isPlainObject(input.data)) fail('data', 'data must be an object', 'invalid_type');

  const headers: Record<string, string> = {};
  if (input.headers !== undefined && !isPlainObject(input.headers)) fail('headers', 'headers must be an object of strings', 'invalid_type');
  for (const [name, value] of Object.entries(isPlainObject(input.headers) ? input.headers : {})) {
    const reserved = reservedHeaderMessage(name);
    if (!HEADER_NAME.test(name)) fail(`headers.${name}`, 'Header names may not contain CR, LF, spaces or colons', 'invalid_string');
    else if (reserved) fail(`headers.${name}`, reserved, 'reserved_header');
    else if (typeof value !== 'string') fail(`headers.${name}`, 'Header values must be strings', 'invalid_type');
    else if (value.length > MAX_HEADER_VALUE || /[\r\n]/.test(value)) fail(`headers.${name}`, `Header values are at most ${MAX_HEADER_VALUE} characters, without CR or LF`, 'invalid_string');
    else headers[name] = value;
  }

  const attachments: SendAttachment[] = [];
  if (input.attachments !== undefined && !Array.isArray(input.attachments)) fail('attachments', 'attachments must be an array', 'invalid_type');
  const rawAttachments = Array.isArray(input.attachments) ? input.attachments : [];
  if (rawAttachments.length > MAX_ATTACHMENTS) fail('attachments', `At most ${MAX_ATTACHMENTS} attachments`, 'too_big');
  rawAttachments.forEach((item, i) => {
    const field = `attachments[${i}]`;
    if (!isPlainObject(item) || typeof item.filename !== 'string' || !item.filename || item.filename.length > 255 || /[\r\n]/.test(item.filename)) {
      fail(`${field}.filename`, 'Each attachment needs a filename (1 to 255 characters)', 'invalid_string');
      return;
    }
    if (typeof item.content !== 'string' || !BASE64.test(item.content)) {
      fail(`${field}.content`, 'content must be base64', 'invalid_string');
      return;
    }
    const contentType = typeof item.contentType === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(item.contentType) ? item.contentType : undefined;
    if (item.contentType !== undefined && !contentType) fail(`${field}.contentType`, 'contentType must be a MIME type', 'invalid_string');
    attachments.push({ filename: item.filename, contentType: contentType ?? 'application/octet-stream', content: Buffer.from(item.content, 'base64') });
  });
  const attachmentBytes = attachments.reduce((sum, attachment) => sum + attachment.content.length, 0);
  if (attachmentBytes > MAX_ATTACHMENT_BYTES) fail('attachments', 'Attachments may total at most 10 MB', 'too_big');

  let scheduledAt: Date | undefined;
  if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
    const at = scheduleTime(input.scheduledAt, now);
    if (typeof at === 'string') fail('scheduledAt', at, 'invalid_date', input.scheduledAt);
    else scheduledAt = at;
  }

  if (errors.length > 0) throw validationError(errors);
  return {
    to,
    subject: subject as string | undefined,
    body: bodyText as string | undefined,
    bodyIsMarkdown: input.type === 'markdown',
    from,
    template: template as string | undefined,
    subscribed: input.subscribed as boolean | undefined,
    headers,
    replyTo: typeof input.reply === 'string' ? input.reply.trim() : undefined,
    attachments,
    data: (input.data as Record<string, unknown>) ?? {},
    ...(scheduledAt ? { scheduledAt } : {}),
  };
}

/** The field errors of a 422 refusal; undefined for any other error. */
export function fieldErrors(err: unknown): FieldError[] | undefined {
  return err instanceof ApiError && err.statusCode === 422 ? err.options.errors : undefined;
}

/** Field errors of the batch's item `index`, named `[index].field`. */
export const itemErrors = (index: number, errors: FieldError[]): FieldError[] =>
  errors.map((error) => ({ ...error, field: `[${index}].${error.field}` }));

/**
 * A refusal of one item of a batch as the refusal of the batch: field errors named
 * `[index].field`, any other refusal's message prefixed with the item and `details.index` set.
 */
export function refusalOfItem(err: unknown, index: number): unknown {
  if (!(err instanceof ApiError)) return err;
  const errors = fieldErrors(err);
  return new ApiError(err.statusCode, err.code, errors ? err.message : `Batch item [${index}]: ${err.message}`, {
    ...err.options,
    ...(errors ? { errors: itemErrors(index, errors) } : {}),
    details: { ...err.options.details, index },
  });
}

/**
 * Validates a whole `/v1/send/batch` body: an array of 1 to MAX_BATCH_REQUESTS `/v1/send`
 * requests, each read by parseSendRequest, with at most MAX_BATCH_RECIPIENTS recipients in all.
 * Every problem of every item is reported at once as a 422 naming `[index].field`.
 */
export function parseSendBatch(body: unknown, now = new Date()): SendRequest[] {
  if (!Array.isArray(body) || body.length < 1 || body.length > MAX_BATCH_REQUESTS) {
    throw validationError([
      {
        field: 'body',
        code: Array.isArray(body) ? (body.length < 1 ? 'too_small' : 'too_big') : 'invalid_type',
        message: `The body must be an array of 1 to ${MAX_BATCH_REQUESTS} send requests`,
      },
    ]);
  }
  const errors: FieldError[] = [];
  const requests: SendRequest[] = [];
  let recipients = 0;
  body.forEach((item, index) => {
    try {
      const request = parseSendRequest(item, now);
      // Named once, at the item that goes past the total.
      if (recipients <= MAX_BATCH_RECIPIENTS && recipients + request.to.length > MAX_BATCH_RECIPIENTS) {
        errors.push({ field: `[${index}].to`, code: 'too_big', message: `A batch may have at most ${MAX_BATCH_RECIPIENTS} recipients in all` });
      }
      recipients += request.to.length;
      requests.push(request);
    } catch (err) {
      const problems = fieldErrors(err);
      if (!problems) throw err;
      errors.push(...itemErrors(index, problems));
    }
  });
  if (errors.length > 0) throw validationError(errors);
  return requests;
}
