import { endpoint, type RouteTable } from '../http/endpoint';
import { ApiError, validationError, type FieldError } from '../http/errors';
import { parseBody } from '../http/validate';
import { BillingLimitsBody } from './billing-dtos';
import * as docs from './billing-limits-docs';

/**
 * The body of `PUT .../billing-limits` must be a JSON object with only the known categories; every
 * unknown key and every invalid value is listed in one 422.
 */
function onlyKnownCategories(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'body', code: 'invalid_type', message: 'The body must be a JSON object' }]);
  }
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'emails' && key !== 'contacts')
    .map((field) => ({ field, code: 'unrecognized_key', message: `${field} is not a billing category (emails, contacts)` }));
  if (errors.length === 0) return;
  try {
    parseBody(BillingLimitsBody, body);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.options.errors) throw err;
    errors.push(...err.options.errors);
  }
  throw validationError(errors);
}

/** A project's billing caps and its current-period consumption (`/users/@me/projects/{id}/billing-*`, session). */
export const billingLimitsRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({
      method: 'get',
      path: '/users/@me/projects/{id}/billing-limits',
      credential: 'member',
      doc: docs.getBillingLimits,
      handle: async (context) => {
        return context.services.billingLimits.get(context.params.id);
      },
    }),
    endpoint<BillingLimitsBody>({
      method: 'put',
      path: '/users/@me/projects/{id}/billing-limits',
      credential: 'member',
      body: BillingLimitsBody,
      precheck: onlyKnownCategories,
      doc: docs.updateBillingLimits,
      handle: async (context) => {
        const { emails, contacts } = context.body;
        return context.services.billingLimits.update(context.params.id, context.role, { emails, contacts });
      },
    }),
    endpoint({
      method: 'get',
      path: '/users/@me/projects/{id}/billing-consumption',
      credential: 'member',
      doc: docs.getBillingConsumption,
      handle: async (context) => {
        return context.services.billingLimits.consumption(context.params.id);
      },
    }),
  ],
};
