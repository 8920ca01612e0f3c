import {
  arrayOf,
  dateTime,
  described,
  errorExample,
  errorResponse,
  headerRef,
  jsonResponse,
  object,
  orEmpty,
  rateLimitHeaders,
  schemaRef,
} from './builders';
import type { Components, Header, Parameter, Response, Schema } from './types';

/** The session cookie set by `POST /auth/login` and `POST /auth/signup`. */
const SESSION_COOKIE = 'herald_session';

const schemas: Record<string, Schema> = {
  FieldError: object(
    {
      field: described({ type: 'string' }, 'Path of the offending field, e.g. `to[1].email`.'),
      message: { type: 'string' },
      code: described({ type: 'string' }, 'Machine-readable reason, e.g. `invalid_string`, `reserved_event`.'),
      received: { description: 'The value that was sent, when it helps.' },
    },
    ['field', 'message', 'code'],
  ),
  ErrorResponse: {
    ...object({
      success: { const: false },
      error: object(
        {
          code: described({ type: 'string' }, 'Machine-readable code, e.g. `VALIDATION_ERROR`.'),
          message: described({ type: 'string' }, 'Human-readable explanation.'),
          statusCode: described({ type: 'integer' }, 'The HTTP status of the response.'),
          requestId: described({ type: 'string' }, 'Equals the `X-Request-Id` response header.'),
          errors: described(arrayOf(schemaRef('FieldError')), 'Field-level details, for validation failures.'),
          details: described({ type: 'object' }, 'Extra context, when applicable.'),
          suggestion: described({ type: 'string' }, 'What to do about it.'),
        },
        ['code', 'message', 'statusCode', 'requestId'],
      ),
      timestamp: dateTime,
    }),
    description: 'The error envelope used by every error except the bare `{ error }` cases.',
  },
  BareError: {
    ...object({ error: described({ type: 'string' }, 'What was wrong with the request.') }),
    description:
      'The bare error body some contact, segment and template validation failures use instead of the envelope. Always status 400.',
  },
  IdempotencyKeyReusedDetails: object({
    key: { type: 'string' },
    originalRequest: { ...object({ method: { type: 'string' }, path: { type: 'string' } }), type: ['object', 'null'] },
    originalRequestAt: { ...dateTime, type: ['string', 'null'] },
    originalStatusCode: described(
      { type: ['integer', 'null'] },
      'The status the first request answered; null while it is still running.',
    ),
  }),
  StorableJson: {
    description:
      'What every JSON body must be besides its own schema: no NUL character (`\\u0000`) and no lone UTF-16 surrogate ' +
      '(an unpaired `\\ud800`-`\\udfff` escape) in any string or key, and at most 64 levels deep, else 422 ' +
      '`VALIDATION_ERROR` naming the field (Postgres cannot store any of them).',
    anyOf: [
      { type: ['null', 'boolean', 'number'] },
      { type: 'string', not: { pattern: '\\u0000' } },
      { type: 'array', items: schemaRef('StorableJson') },
      { type: 'object', propertyNames: { not: { pattern: '\\u0000' } }, additionalProperties: schemaRef('StorableJson') },
    ],
  },
  Success: object({ success: { const: true } }),
  CursorPage: {
    ...object({
      data: { type: 'array' },
      cursor: described(
        { type: ['string', 'null'] },
        'Opaque; pass it as `cursor` to get the next page. Meaningless once `hasMore` is false.',
      ),
      hasMore: described({ type: 'boolean' }, 'False when this is the last page.'),
      total: described({ type: 'integer' }, 'Number of matching items; filled only on the first page (no `cursor`), else 0.'),
    }),
    description: 'A page of a cursor-paginated list.',
  },
  OffsetPage: {
    ...object({
      data: { type: 'array' },
      page: { type: 'integer', minimum: 1 },
      pageSize: { type: 'integer', minimum: 1 },
      total: { type: 'integer', minimum: 0 },
      totalPages: { type: 'integer', minimum: 0 },
    }),
    description: 'A page of an offset-paginated list.',
  },
};

const integerHeader = (description: string): Header => ({ description, schema: { type: 'integer', minimum: 0 } });

const headers: Record<string, Header> = {
  'X-Request-Id': {
    description: 'Identifies the request; equals `error.requestId` in error bodies. A sane incoming value is kept.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': integerHeader("Requests allowed per minute for the key's project."),
  'RateLimit-Remaining': integerHeader('Requests left in the current window.'),
  'RateLimit-Reset': integerHeader('Seconds until the current window ends.'),
  'Retry-After': integerHeader('Seconds to wait before trying again.'),
  'Set-Cookie': {
    description: `Sets (or, on logout, clears) the \`${SESSION_COOKIE}\` session cookie: HttpOnly, SameSite=Lax, 30 days.`,
    schema: { type: 'string' },
  },
};

const parameters: Record<string, Parameter> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'Makes the request safe to retry: 1 to 255 printable ASCII characters, scoped to the project, kept 24 hours by default. ' +
      'A second request with the same key answers 409 `IDEMPOTENCY_KEY_REUSED` and is not performed again.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
  Limit: {
    name: 'limit',
    in: 'query',
    description: 'Page size, 20 when empty; whole numbers of up to 15 digits outside 1..100 are clamped. Anything else answers 400.',
    schema: orEmpty({ type: 'integer', minimum: -999_999_999_999_999, maximum: 999_999_999_999_999, default: 20 }),
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    description:
      'The `cursor` of the previous page, unchanged; omit (or leave empty) for the first page. Any other value answers 400: ' +
      'cursors are signed, so only the shape can be stated here.',
    schema: { type: 'string', pattern: '^(?:[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]{22})?$' },
  },
  Page: {
    name: 'page',
    in: 'query',
    description: 'Page number; anything but a whole number from 1 to 1,000,000 answers 400.',
    schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
  },
  PageSize: {
    name: 'pageSize',
    in: 'query',
    description: 'Items per page.',
    schema: { type: 'integer', minimum: 1, default: 20 },
  },
};

const envelope = schemaRef('ErrorResponse');

const responses: Record<string, Response> = {
  BadRequest: errorResponse(400, 'BAD_REQUEST', 'Malformed request, e.g. a body that is not valid JSON', {
    message: 'Malformed JSON in request body',
  }),
  Unauthorized: jsonResponse(
    'Missing or invalid credentials: `INVALID_API_KEY` for an unknown key or one of the wrong kind, ' +
      '`UNAUTHORIZED` for a missing or expired session.',
    envelope,
    {
      examples: {
        wrongKeyKind: {
          summary: 'A public key on a secret-key endpoint',
          value: errorExample(401, 'INVALID_API_KEY', 'This endpoint requires a secret key (sk_...)'),
        },
        noSession: {
          summary: 'No valid session cookie',
          value: errorExample(401, 'UNAUTHORIZED', 'Sign in first'),
        },
      },
    },
  ),
  Forbidden: errorResponse(403, 'FORBIDDEN', 'Not allowed for the caller; a disabled project answers `PROJECT_DISABLED`, work past a billing limit `BILLING_LIMIT_EXCEEDED`', {
    message: 'Only an OWNER or ADMIN may do this',
  }),
  NotFound: errorResponse(
    404,
    'NOT_FOUND',
    "No such resource, or it belongs to another project whose data is never shown",
    { message: 'Project not found' },
  ),
  Conflict: errorResponse(409, 'CONFLICT', 'The request conflicts with the current state of the resource'),
  IdempotencyKeyReused: jsonResponse(
    'The `Idempotency-Key` was already used by this project, or a request with it is still running ' +
      '(`IDEMPOTENCY_KEY_REUSED`); nothing was performed.',
    { allOf: [envelope, object({ error: object({ details: schemaRef('IdempotencyKeyReusedDetails') }) })] },
    {
      example: errorExample(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used', {
        details: {
          key: 'order-1042-receipt',
          originalRequest: { method: 'POST', path: '/v1/send' },
          originalRequestAt: '2025-01-01T11:59:58.000Z',
          originalStatusCode: 200,
        },
      }),
    },
  ),
  PayloadTooLarge: errorResponse(
    413,
    'PAYLOAD_TOO_LARGE',
    'The body exceeds the limit: 40 MB on `/v1/send`, 1 MB on other JSON endpoints',
    { message: 'Request body exceeds the limit of 1048576 bytes' },
  ),
  ValidationError: jsonResponse('The request failed validation (`VALIDATION_ERROR`); nothing was written.', envelope, {
    example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'email', message: 'Must be a valid email address', code: 'invalid_string', received: 'nope' }],
      suggestion: 'Check the fields listed in error.errors and send the request again.',
    }),
  }),
  RateLimited: errorResponse(429, 'RATE_LIMITED', "The project's request budget for this minute is spent", {
    message: 'Rate limit exceeded',
    headers: { 'Retry-After': headerRef('Retry-After'), ...rateLimitHeaders },
  }),
  InternalError: errorResponse(500, 'INTERNAL_SERVER_ERROR', 'Unexpected failure; quote the request id when reporting it', {
    message: 'An unexpected error occurred',
  }),
};

/** The components every path module may reference; resource schemas are merged in by `buildOpenApiDocument`. */
export function sharedComponents(): Components {
  return {
    schemas: { ...schemas },
    responses: { ...responses },
    parameters: { ...parameters },
    headers: { ...headers },
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'pk_… or sk_…',
        description:
          "A project's API key as `Authorization: Bearer <key>`. The public key (`pk_`) may call only `POST /v1/track`; " +
          'the secret key (`sk_`) may call every API endpoint. The project is derived from the key.',
      },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'The dashboard session, set by `POST /auth/login` or `POST /auth/signup`, cleared by `GET /auth/logout`.',
      },
    },
  };
}
