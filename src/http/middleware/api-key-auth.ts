import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { keyCacheOf } from '../../projects/key-cache';
import { ApiError } from '../errors';
import type { KeyProject } from '../request-context';

/** Which keys an endpoint accepts: `secret` everywhere, `any` only on `POST /v1/track`. */
export type KeyRequirement = 'secret' | 'any';

const invalidKey = (message: string) =>
  new ApiError(401, 'INVALID_API_KEY', message, {
    suggestion: 'Send the project key as "Authorization: Bearer <key>".',
  });

/** The project an `Authorization` header's bearer key belongs to; 401 or 403 when it may not call. */
export async function authenticateKey(dataSource: DataSource, authorization: string | undefined, requirement: KeyRequirement): Promise<KeyProject> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw invalidKey('Missing API key: send "Authorization: Bearer <key>"');
  // Kept keys answer from memory while every change to keys and projects is announced (KeyCache).
  const key = await keyCacheOf(dataSource).find(match[1]);
  if (!key) throw invalidKey('The API key is not valid');
  if (requirement === 'secret' && key.kind !== 'secret') {
    throw invalidKey('This endpoint requires a secret key (sk_...); public keys (pk_...) may only call POST /v1/track');
  }
  if (key.disabled) {
    throw new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled', {
      suggestion: 'Contact the project owner or check the project security page.',
    });
  }
  return { id: key.projectId, name: key.projectName, keyKind: key.kind };
}

/** Authenticates the request's bearer key and attaches its project; 401 or 403 before anything runs. */
export function apiKeyAuth(dataSource: DataSource, requirement: KeyRequirement): RequestHandler {
  return async (req, _res, next) => {
    req.project = await authenticateKey(dataSource, req.headers.authorization, requirement);
    next();
  };
}
