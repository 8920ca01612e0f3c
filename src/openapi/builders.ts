import { SPACE } from '../http/validate';
import type { MediaType, Parameter, Ref, RequestBody, Response, Schema, SecurityRequirement } from './types';

/** Small constructors shared by the path modules, so each operation reads as one compact literal. */

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): Ref => ({ $ref: `#/components/responses/${name}` });
export const parameterRef = (name: string): Ref => ({ $ref: `#/components/parameters/${name}` });
export const headerRef = (name: string): Ref => ({ $ref: `#/components/headers/${name}` });

export const uuid: Schema = { type: 'string', format: 'uuid' };
export const dateTime: Schema = { type: 'string', format: 'date-time' };
export const email: Schema = { type: 'string', format: 'email' };

/** An address as Herald's validators take it (class-validator's IsEmail, at most 320 characters). */
export const emailAddress: Schema = { ...email, maxLength: 320 };

/** The schema, or null. */
export const orNull = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

/** The schema, or the empty string that a query parameter reads as absent. */
export const orEmpty = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'string', maxLength: 0 }] });

/** A property that must not be sent at all. */
export const absent: Schema = { not: {} };


/** A string holding something besides white space, what `value.trim() !== ''` accepts. */
export const notBlank = (schema: Schema = { type: 'string' }): Schema => ({ ...schema, pattern: `[^${SPACE}]` });

/** The same string schema, refusing CR and LF anywhere. */
export const singleLine = (schema: Schema): Schema => ({ ...schema, not: { pattern: '[\\r\\n]' } });

/** A regex source matching `text` in any ASCII letter case. */
export const ignoringCase = (text: string): string =>
  [...text].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');

/** A whole-string regex source for what matches `source` once `trim()` has taken the white space around it. */
export const trimmedPattern = (source: string): string => `^[${SPACE}]*(?:${source})[${SPACE}]*$`;

/** One of `values` in any letter case, with white space around it, as a trimmed and upper-cased parameter takes it. */
export const choiceIgnoringCase = (values: readonly string[]): Schema => ({
  type: 'string',
  pattern: trimmedPattern(values.map(ignoringCase).join('|')),
});

/** The same schema with a description attached. */
export const described = (schema: Schema, description: string): Schema => ({ ...schema, description });

/** An object schema; every property is required unless `required` names a subset. */
export function object(properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });

/** A cursor-paginated list of `item` (SPEC conventions, item 3). */
export const cursorPage = (item: Schema): Schema => ({
  allOf: [schemaRef('CursorPage'), object({ data: arrayOf(item) })],
});

/** An offset-paginated list of `item` (SPEC conventions, item 4). */
export const offsetPage = (item: Schema): Schema => ({
  allOf: [schemaRef('OffsetPage'), object({ data: arrayOf(item) })],
});

/** Operation security: none, the dashboard session cookie, or an API key (the document default). */
export const noAuth: SecurityRequirement[] = [];
export const sessionAuth: SecurityRequirement[] = [{ session: [] }];
export const apiKeyAuth: SecurityRequirement[] = [{ apiKey: [] }];

/** A JSON request body (required unless told): `schema`, and storable as every JSON body must be (`StorableJson`). */
export function jsonBody(schema: Schema, required = true): RequestBody {
  return { required, content: { 'application/json': { schema: { allOf: [schema, schemaRef('StorableJson')] } } } };
}

/** A JSON response; like every Herald response it carries `X-Request-Id`. */
export function jsonResponse(
  description: string,
  schema: Schema,
  extra: { headers?: Response['headers']; example?: unknown; examples?: MediaType['examples'] } = {},
): Response {
  const { headers, ...examples } = extra;
  return {
    description,
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...headers },
    content: { 'application/json': { schema, ...examples } },
  };
}

/** The headers the per-project rate limiter sets on every answer to an API-key request that passed authentication. */
export const rateLimitHeaders: Response['headers'] = {
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
};

/** A path parameter (a uuid unless told otherwise). */
export function pathParam(name: string, description: string, schema: Schema = uuid): Parameter {
  return { name, in: 'path', required: true, description, schema };
}

/** The limits every multipart upload states (see MULTIPART_LIMITS in src/http/file-upload.ts). */
export const MULTIPART_LIMITS_NOTE =
  'Besides its one `file`, the form may hold at most 10 other fields of at most 16 KiB each: more fields or parts, ' +
  'a second file or a malformed body answer 400 `BAD_REQUEST`, a larger field 413.';

/** An example of the SPEC error envelope carrying `code`. */
export function errorExample(statusCode: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return {
    success: false,
    error: { code, message, statusCode, requestId: '0b6f2a8e-5c1d-4a57-9f0e-2f4c3b7d9a11', ...extra },
    timestamp: '2025-01-01T12:00:00.000Z',
  };
}

/** An error answer: the SPEC envelope, with an example carrying `code`, which the description names too. */
export function errorResponse(
  statusCode: number,
  code: string,
  description: string,
  options: { message?: string; headers?: Response['headers'] } = {},
): Response {
  return jsonResponse(`${description} (\`${code}\`)`, schemaRef('ErrorResponse'), {
    headers: options.headers,
    example: errorExample(statusCode, code, options.message ?? description),
  });
}

/** The shared error answers in `components.responses`, by status. */
const COMMON_ERRORS = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  422: 'ValidationError',
  429: 'RateLimited',
  500: 'InternalError',
} as const;

export type CommonErrorStatus = keyof typeof COMMON_ERRORS;

/** References to the shared error answers for the given statuses; 500 is always included. */
export function commonErrors(...statuses: CommonErrorStatus[]): Record<string, Ref> {
  const answers: Record<string, Ref> = {};
  for (const status of [...statuses, 500 as const]) answers[String(status)] = responseRef(COMMON_ERRORS[status]);
  return answers;
}
