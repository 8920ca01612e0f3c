import type { RequestHandler } from 'express';
import { badRequest } from '../errors';

/** `%00` in a path: a NUL character once decoded, which Postgres cannot store or compare. */
const ENCODED_NUL = /%00/i;

/**
 * The one gate for query strings and paths: every query parameter is one plain string
 * (`search=a&search=b`, `search[]=a` and `search[k]=a` are 400 `BAD_REQUEST`), and neither
 * a parameter nor the path holds a NUL character. Routes then read strings only.
 */
export const plainQuery: RequestHandler = (req, _res, next) => {
  if (ENCODED_NUL.test(req.path)) throw badRequest('The path must not contain a NUL character (%00)');
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value !== 'string') {
      throw badRequest(`Query parameter ${name} must be given once, as a plain value`, {
        suggestion: `Send ${name}=<value> a single time; repeated and bracketed forms (${name}[]=) are not accepted.`,
      });
    }
    if (name.includes('\u0000') || value.includes('\u0000')) throw badRequest(`Query parameter ${name} must not contain a NUL character`);
  }
  next();
};
