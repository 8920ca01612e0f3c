import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../logger';
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

/** What an error answers: its status, the headers it adds and its JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * The one place errors become answers: the SPEC envelope, or the bare `{ error }` body. A 5xx
 * is logged with the error on `log`. Used by the error middleware and by the lean routes.
 */
export function errorAnswer(err: unknown, requestId: string, log: Logger): ErrorAnswer {
  if (err instanceof BareError) return { status: err.statusCode, headers: {}, body: { error: err.message } };
  const apiError = toApiError(err);
  if (apiError.statusCode >= 500) log.error({ err }, 'request failed');
  const { errors, details, suggestion } = apiError.options;
  return {
    status: apiError.statusCode,
    headers: apiError.options.headers ?? {},
    body: {
      success: false,
      error: {
        code: apiError.code,
        message: apiError.message,
        statusCode: apiError.statusCode,
        requestId,
        ...(errors ? { errors } : {}),
        ...(details ? { details } : {}),
        ...(suggestion ? { suggestion } : {}),
      },
      timestamp: new Date().toISOString(),
    },
  };
}

/** The error middleware: writes errorAnswer. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const { status, headers, body } = errorAnswer(err, req.id, req.log);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(body);
};
