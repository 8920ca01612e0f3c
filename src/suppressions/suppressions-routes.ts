import { normalizeEmail } from '../contacts/contacts-service';
import { normaliseDomain } from '../domains/records';
import type { SuppressionType } from '../entities/suppression';
import { endpoint, type RouteTable } from '../http/endpoint';
import { badRequest, validationError } from '../http/errors';
import { cursorPage, cursorParams } from '../http/pagination';
import type { SuppressionCursor, SuppressionFilter } from './suppressions-queries';
import { suppressionView } from './suppressions-service';
import { AddSuppressionBody, Suppression, SuppressionListQuery, SUPPRESSION_REASONS, SUPPRESSION_TYPES } from './suppressions-dtos';
import * as docs from './suppressions-docs';

/** One of `allowed` (case-insensitive), undefined when absent; 400 for anything else. */
function oneOf<T extends string>(name: string, value: unknown, allowed: T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  const found = allowed.find((candidate) => typeof value === 'string' && candidate === value.toUpperCase());
  if (!found) throw badRequest(`${name} must be one of ${allowed.join(', ')}`, { details: { [name]: value } });
  return found;
}

/** Filters of `GET /suppressions`: `type`, `reason` (400 when unrecognised) and a `search` substring. */
function listFilter(query: SuppressionListQuery): SuppressionFilter {
  const search = query.search?.trim().toLowerCase() ?? '';
  return { type: oneOf('type', query.type, SUPPRESSION_TYPES), reason: oneOf('reason', query.reason, SUPPRESSION_REASONS), search: search || undefined };
}

/** `{ email }` or `{ domain }`, exactly one, as the type and lower-case value of the entry to add. */
function entryToAdd({ email, domain }: AddSuppressionBody): { type: SuppressionType; value: string } {
  if ((email === undefined) === (domain === undefined)) {
    const message = 'Send either email (one address) or domain (every address at it), not both';
    throw validationError(['email', 'domain'].map((field) => ({ field, message, code: 'invalid_union' })));
  }
  if (email !== undefined) return { type: 'EMAIL', value: normalizeEmail(email) };
  if (!normaliseDomain(domain!)) {
    throw validationError([{ field: 'domain', code: 'invalid_string', message: 'domain must be a hostname such as example.com', received: domain }]);
  }
  return { type: 'DOMAIN', value: domain!.trim().toLowerCase().replace(/\.$/, '') };
}

/** The `{value}` path parameter as entries store it. */
const valueParam = (value: string) => value.trim().toLowerCase();

/** The suppression list (`/suppressions`): addresses and domains the project never sends to. */
export const suppressionsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Suppression],
  endpoints: [
    endpoint<undefined, SuppressionListQuery>({
      method: 'get',
      path: '/suppressions',
      credential: 'secret',
      query: SuppressionListQuery,
      doc: docs.listSuppressions,
      handle: async ({ services, project, query, cursors }) => {
        const page = cursorParams(query, cursors.for<SuppressionCursor>('suppressions'));
        const { rows, countTotal } = await services.suppressions.list(project.id, listFilter(query), page);
        const result = await cursorPage(rows, page, (row) => ({ t: row.createdAtText, v: row.value }), countTotal);
        return { ...result, data: result.data.map(suppressionView) };
      },
    }),
    endpoint<AddSuppressionBody>({
      method: 'post',
      path: '/suppressions',
      credential: 'secret',
      body: AddSuppressionBody,
      doc: docs.addSuppression,
      handle: async ({ services, project, body, res }) => {
        const { type, value } = entryToAdd(body);
        const { entry, created } = await services.suppressions.add(project.id, type, value);
        res.status(created ? 201 : 200).json(suppressionView(entry));
      },
    }),
    endpoint({
      method: 'get',
      path: '/suppressions/{value}',
      credential: 'secret',
      doc: docs.getSuppression,
      handle: async ({ services, project, params }) => suppressionView(await services.suppressions.get(project.id, valueParam(params.value))),
    }),
    endpoint({
      method: 'delete',
      path: '/suppressions/{value}',
      credential: 'secret',
      doc: docs.removeSuppression,
      handle: async ({ services, project, params }) => {
        await services.suppressions.remove(project.id, valueParam(params.value));
        return { success: true };
      },
    }),
  ],
};
