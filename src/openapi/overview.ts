/** The Markdown introduction shown above the reference: what holds for every endpoint. */
export const overview = `
Herald is a multi-tenant email platform: transactional sending, event tracking, contacts, segments,
campaigns, templates and workflows. Each project owns its data; every request acts on exactly one project.

## Authentication

- **API keys.** Every project has two keys, sent as \`Authorization: Bearer <key>\`:
  the **public key** (\`pk_…\`) may call only \`POST /v1/track\`, so it can live in a browser;
  the **secret key** (\`sk_…\`) may call every API endpoint and must stay on a server.
  The project is derived from the key; no request names it. A missing or unknown key, or a key of
  the wrong kind, answers 401 \`INVALID_API_KEY\` (the message says which kind the endpoint needs).
  A disabled project answers 403 \`PROJECT_DISABLED\`. \`POST /users/@me/projects/{id}/regenerate-keys\`
  replaces both keys at once; the old ones stop working immediately.
- **Session cookie.** The dashboard endpoints (\`/auth\`, \`/users/@me\`, \`/projects/{id}\`) use the
  \`herald_session\` cookie set by \`POST /auth/login\`. Project paths require membership; a project the
  caller is not a member of answers 404. Roles: \`OWNER\`, \`ADMIN\`, \`MEMBER\`.
- \`GET /health\`, \`GET /config\` and the \`/auth\` sign-in endpoints need no authentication.

## Errors

Errors use one envelope (schema \`ErrorResponse\`):
\`{ success: false, error: { code, message, statusCode, requestId, errors?, details?, suggestion? }, timestamp }\`.
\`error.requestId\` equals the \`X-Request-Id\` header that every response carries. Validation failures are
422 \`VALIDATION_ERROR\` with one entry per field in \`error.errors\`; nothing is written by a request that fails
validation. A few contact, segment and template checks answer 400 with the bare body \`{ error }\`
(schema \`BareError\`). Malformed JSON is 400 \`BAD_REQUEST\`; a body over the limit (40 MB on \`/v1/send\`,
1 MB elsewhere) is 413 \`PAYLOAD_TOO_LARGE\`. Work past one of the project's billing limits (emails per month, contacts
stored; see "Billing limits") is refused with 403 \`BILLING_LIMIT_EXCEEDED\`, \`error.details\` =
\`{ category, limit, used, requested, period: { start, end } }\`, and nothing of the request is stored.

## Rate limits

Each project may make **1000 requests per minute** (configurable when self-hosting), public and secret key
together. The budget is shared by all API processes of a deployment. Responses carry \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds until the window ends); past the limit the answer is
429 \`RATE_LIMITED\` with \`Retry-After\` in seconds.

## Idempotency

\`POST /v1/send\` and \`POST /v1/track\` accept an \`Idempotency-Key\` header: 1 to 255 printable ASCII
characters, scoped to the project, remembered for 24 hours (configurable when self-hosting). A request
whose key was already used is not performed again: it answers 409 \`IDEMPOTENCY_KEY_REUSED\` with
\`error.details\` = \`{ key, originalRequest: { method, path }, originalRequestAt, originalStatusCode }\`.
A duplicate arriving while the first request is still running gets the same 409. A request refused before it
ran (any 4xx, such as 401 or 422) does not use up its key, so it can be corrected and retried; one that ran
(2xx or 5xx) does. An empty, too long or non-printable key is 422.

## Pagination

Cursor-paginated lists take \`limit\` (default 20, at most 100) and \`cursor\`, and answer
\`{ data, cursor, hasMore, total }\`; \`total\` is filled on the first page only. A cursor is signed for
the list (and sort) that issued it: pass it back unchanged; any other value is 400 \`BAD_REQUEST\`.
Offset-paginated lists take \`page\` (1 to 1,000,000) and \`pageSize\` and answer
\`{ data, page, pageSize, total, totalPages }\`. Counts above their maximum are clamped; a count or page
that is not a whole number of at most 15 digits, a page out of range, and a query parameter given more than
once or in bracket form (\`search[]=\`) are 400 \`BAD_REQUEST\`.
`.trim();
