import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { Router } from 'express';
import type { DataSource } from 'typeorm';
import type { LimitChanges } from './limits-service';
import { ApiError, validationError, type FieldError } from '../http/errors';
import { sessionAuth } from '../http/middleware/session-auth';
import { parseBody } from '../http/validate';
import { roleIn } from '../projects/members-service';
import type { Services } from '../composition';

/** The largest cap Postgres stores (integer). */
const MAX_LIMIT = 2_147_483_647;
const given = (_: object, value: unknown) => value !== undefined && value !== null;

class LimitsBody {
  @ValidateIf(given) @IsInt() @Min(0) @Max(MAX_LIMIT) emails?: number | null;
  @ValidateIf(given) @IsInt() @Min(0) @Max(MAX_LIMIT) contacts?: number | null;
}

/** The body of `PUT .../billing-limits`: a JSON object with only the known categories. */
function limitChanges(body: unknown): LimitChanges {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'body', code: 'invalid_type', message: 'The body must be a JSON object' }]);
  }
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'emails' && key !== 'contacts')
    .map((field) => ({ field, code: 'unrecognized_key', message: `${field} is not a billing category (emails, contacts)` }));
  try {
    const { emails, contacts } = parseBody(LimitsBody, body);
    if (errors.length === 0) return { emails, contacts };
  } catch (err) {
    if (!(err instanceof ApiError) || !err.options.errors) throw err;
    errors.push(...err.options.errors);
  }
  throw validationError(errors);
}

/** A project's billing caps and its current-period consumption (`/users/@me/projects/{id}/billing-*`, session cookie). */
export function billingLimitsRouter(services: Services, dataSource: DataSource): Router {
  const router = Router();
  const path = '/users/@me/projects/:id';
  router.use(['/users/@me/projects/:id/billing-limits', '/users/@me/projects/:id/billing-consumption'], sessionAuth(dataSource));
  const role = (projectId: string, userId: string) => roleIn(dataSource, projectId, userId);

  router.get(`${path}/billing-limits`, async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await services.billingLimits.get(req.params.id));
  });

  router.put(`${path}/billing-limits`, async (req, res) => {
    const memberRole = await role(req.params.id, req.user!.id);
    res.json(await services.billingLimits.update(req.params.id, memberRole, limitChanges(req.body)));
  });

  router.get(`${path}/billing-consumption`, async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await services.billingLimits.consumption(req.params.id));
  });

  return router;
}
