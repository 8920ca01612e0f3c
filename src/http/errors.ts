/** One field-level problem inside a validation error. */
export interface FieldError {
  field: string;
  message: string;
  code: string;
  received?: unknown;
}

interface ApiErrorOptions {
  errors?: FieldError[];
  details?: Record<string, unknown>;
  suggestion?: string;
  headers?: Record<string, string>;
}

/** An error that the error middleware writes as the SPEC envelope. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
  }
}

/** An error written as the bare `{ error }` body (SPEC "Errors"), always status 400. */
export class BareError extends Error {
  readonly statusCode = 400;
}

export const badRequest = (message: string, options?: ApiErrorOptions) =>
  new ApiError(400, 'BAD_REQUEST', message, options);

export const unauthorized = (message: string, code = 'UNAUTHORIZED') => new ApiError(401, code, message);

export const forbidden = (message: string, code = 'FORBIDDEN') => new ApiError(403, code, message);

export const notFound = (what: string) =>
  new ApiError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (message: string, code = 'CONFLICT', details?: Record<string, unknown>) =>
  new ApiError(409, code, message, { details });

/** The 429 of a spent rate limit, with `Retry-After` in seconds. */
export const rateLimited = (message: string, retryAfterSeconds: number, suggestion: string) =>
  new ApiError(429, 'RATE_LIMITED', message, { headers: { 'Retry-After': String(retryAfterSeconds) }, suggestion });

export const validationError = (errors: FieldError[], message = 'Request validation failed') =>
  new ApiError(422, 'VALIDATION_ERROR', message, {
    errors,
    suggestion: 'Check the fields listed in error.errors and send the request again.',
  });
