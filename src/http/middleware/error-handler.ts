import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, BareError } from '../errors';

/** Answers every route that no router claimed with the SPEC's 404 envelope. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`));
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const parserError = err as BodyParserError;
  if (parserError?.type === 'entity.parse.failed') {
    return new ApiError(400, 'BAD_REQUEST', 'Malformed JSON in request body', {
      suggestion: 'Send a valid JSON document with Content-Type: application/json.',
    });
  }
  if (parserError?.type === 'entity.too.large') {
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${parserError.limit} bytes`);
  }
  if (parserError?.status && parserError.status >= 400 && parserError.status < 500) {
    return new ApiError(parserError.status, 'BAD_REQUEST', (err as Error).message);
  }
  return new ApiError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred', {
    suggestion: 'Try again later; quote the requestId if the problem persists.',
  });
}

/** The one place errors become responses: the SPEC envelope, or the bare `{ error }` body. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof BareError) {
    res.status(err.statusCode).json({ error: err.message });
    return;
  }
  const apiError = toApiError(err);
  if (apiError.statusCode >= 500) req.log?.error({ err }, 'request failed');
  for (const [name, value] of Object.entries(apiError.options.headers ?? {})) res.setHeader(name, value);
  const { errors, details, suggestion } = apiError.options;
  res.status(apiError.statusCode).json({
    success: false,
    error: {
      code: apiError.code,
      message: apiError.message,
      statusCode: apiError.statusCode,
      requestId: req.id,
      ...(errors ? { errors } : {}),
      ...(details ? { details } : {}),
      ...(suggestion ? { suggestion } : {}),
    },
    timestamp: new Date().toISOString(),
  });
};
