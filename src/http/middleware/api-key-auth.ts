import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { findKey } from '../../projects/api-keys';
import { ApiError } from '../errors';
import '../request-context';

/** Which keys an endpoint accepts: `secret` everywhere, `any` only on `POST /v1/track`. */
export type KeyRequirement = 'secret' | 'any';

const invalidKey = (message: string) =>
  new ApiError(401, 'INVALID_API_KEY', message, {
    suggestion: 'Send the project key as "Authorization: Bearer <key>".',
  });

/** Authenticates the request's bearer key and attaches its project; 401 or 403 before anything runs. */
export function apiKeyAuth(dataSource: DataSource, requirement: KeyRequirement): RequestHandler {
  return async (req, _res, next) => {
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw invalidKey('Missing API key: send "Authorization: Bearer <key>"');
    const key = await findKey(dataSource.manager, match[1]);
    if (!key) throw invalidKey('The API key is not valid');
    if (requirement === 'secret' && key.kind !== 'secret') {
      throw invalidKey('This endpoint requires a secret key (sk_...); public keys (pk_...) may only call POST /v1/track');
    }
    if (key.disabled) {
      throw new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled', {
        suggestion: 'Contact the project owner or check the project security page.',
      });
    }
    req.project = { id: key.projectId, name: key.projectName, keyKind: key.kind };
    next();
  };
}
