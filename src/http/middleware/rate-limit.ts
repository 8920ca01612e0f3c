import type { Request, RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { projectBucket, WindowLimiter } from '../../rate-limits/window-limiter';
import { clientAddress } from '../client-address';
import { rateLimited } from '../errors';
import '../request-context';

/**
 * A per-bucket limit of requests per minute held across every API process (WindowLimiter).
 * Sets `RateLimit-*` headers on each response and answers 429 with `Retry-After`.
 */
function windowRateLimit(dataSource: DataSource, limitPerMinute: number, bucketOf: (req: Request) => string): RequestHandler {
  const limiter = new WindowLimiter(dataSource, limitPerMinute);
  return async (req, res, next) => {
    const { limit, remaining, reset, limited } = await limiter.count(bucketOf(req));
    res.setHeader('RateLimit-Limit', String(limit));
    res.setHeader('RateLimit-Remaining', String(remaining));
    res.setHeader('RateLimit-Reset', String(reset));
    if (limited) {
      throw rateLimited(`Rate limit of ${limit} requests per minute exceeded`, reset, `Wait ${reset} seconds before sending more requests.`);
    }
    next();
  };
}

/** The per-project limit of key-authenticated requests (`RATE_LIMIT_PER_MINUTE`). */
export function rateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return windowRateLimit(dataSource, limitPerMinute, (req) => projectBucket(req.project!.id));
}

/** The per-client-address limit of the sign-in and account-email endpoints (`AUTH_RATE_LIMIT_PER_MINUTE`). */
export function addressRateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return windowRateLimit(dataSource, limitPerMinute, (req) => `auth-address:${clientAddress(req.ip)}`);
}
