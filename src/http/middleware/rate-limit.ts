import type { Request, RequestHandler } from 'express';
import type { ServerResponse } from 'node:http';
import type { DataSource } from 'typeorm';
import { projectBucket, WindowLimiter } from '../../rate-limits/window-limiter';
import { clientAddress } from '../client-address';
import { rateLimited } from '../errors';
import '../request-context';

/**
 * Counts a request against a bucket's limit (WindowLimiter, held across every API process):
 * sets the `RateLimit-*` headers on its response and throws 429 with `Retry-After` past the limit.
 */
export async function countRequest(limiter: WindowLimiter, bucket: string, res: ServerResponse): Promise<void> {
  const { limit, remaining, reset, limited } = await limiter.count(bucket);
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(reset));
  if (limited) {
    throw rateLimited(`Rate limit of ${limit} requests per minute exceeded`, reset, `Wait ${reset} seconds before sending more requests.`);
  }
}

function windowRateLimit(limiter: WindowLimiter, bucketOf: (req: Request) => string): RequestHandler {
  return async (req, res, next) => {
    await countRequest(limiter, bucketOf(req), res);
    next();
  };
}

/** The per-project limit of key-authenticated requests (`RATE_LIMIT_PER_MINUTE`), counted by the API's one project limiter. */
export function rateLimit(limiter: WindowLimiter): RequestHandler {
  return windowRateLimit(limiter, (req) => projectBucket(req.project!.id));
}

/** The per-client-address limit of the sign-in and account-email endpoints (`AUTH_RATE_LIMIT_PER_MINUTE`). */
export function addressRateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return windowRateLimit(new WindowLimiter(dataSource, limitPerMinute), (req) => `auth-address:${clientAddress(req.ip)}`);
}
