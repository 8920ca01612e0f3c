import type { RequestHandler, Response } from 'express';
import type { DataSource } from 'typeorm';
import { ApiError, validationError } from '../errors';
import * as queries from '../idempotency-queries';
import '../request-context';

const VALID_KEY = /^[\x20-\x7E]{1,255}$/;

/** Whether a value may be an Idempotency-Key: 1 to 255 printable ASCII characters. */
export const isValidIdempotencyKey = (key: string) => VALID_KEY.test(key);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `Idempotency-Key` handling, project-scoped and stored in Postgres. The first request
 * with a key claims it atomically (so of two concurrent requests only one runs); any
 * later use within the TTL answers 409 `IDEMPOTENCY_KEY_REUSED`. A request refused with
 * a 4xx gives its key back; one that ran (2xx, 5xx) keeps it used.
 */
export function idempotency(dataSource: DataSource, ttlHours: number): RequestHandler {
  return async (req, res, next) => {
    const key = req.header('idempotency-key');
    if (key === undefined || SAFE_METHODS.has(req.method)) return next();
    if (!isValidIdempotencyKey(key)) {
      throw validationError([
        {
          field: 'Idempotency-Key',
          code: 'invalid_string',
          message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
        },
      ]);
    }
    const projectId = req.project!.id;
    if (!(await queries.claimKey(dataSource, projectId, key, req.method, req.originalUrl.split('?')[0], ttlHours))) {
      const stored = await queries.findStoredKey(dataSource, projectId, key);
      throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for another request', {
        details: {
          key,
          originalRequest: stored ? { method: stored.method, path: stored.path } : null,
          originalRequestAt: stored?.created_at.toISOString() ?? null,
          originalStatusCode: stored?.status_code ?? null,
        },
        suggestion: 'Use a new Idempotency-Key for a new request.',
      });
    }
    settleOnResponse(res, (statusCode) =>
      statusCode >= 400 && statusCode < 500
        ? queries.releaseKey(dataSource, projectId, key)
        : queries.recordKeyStatus(dataSource, projectId, key, statusCode),
    );
    next();
  };
}

/** Runs `settle` with the final status before a JSON answer leaves (or after any other answer ends). */
function settleOnResponse(res: Response, settle: (statusCode: number) => Promise<unknown>): void {
  let settled: Promise<unknown> | undefined;
  const once = () => (settled ??= settle(res.statusCode).catch((err) => res.req.log?.error({ err }, 'idempotency settle failed')));
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    void once().then(() => json(body));
    return res;
  };
  res.on('finish', () => void once());
}
