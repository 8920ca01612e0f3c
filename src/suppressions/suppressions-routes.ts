import { IsEmail, IsString } from 'class-validator';
import { Router } from 'express';
import { normalizeEmail } from '../contacts/contacts-service';
import { normaliseDomain } from '../domains/records';
import type { SuppressionReason, SuppressionType } from '../entities/suppression';
import { badRequest, validationError } from '../http/errors';
import type { Cursors } from '../http/cursors';
import { cursorPage, cursorParams } from '../http/pagination';
import { Optional, parseBody } from '../http/validate';
import type { SuppressionCursor, SuppressionFilter } from './suppressions-queries';
import { suppressionView, type SuppressionsService } from './suppressions-service';

const TYPES: SuppressionType[] = ['EMAIL', 'DOMAIN'];
const REASONS: SuppressionReason[] = ['BOUNCE', 'COMPLAINT', 'MANUAL'];

class SuppressionBody {
  @Optional() @IsEmail({}, { message: 'email must be a valid email address' }) email?: string;
  @Optional() @IsString() domain?: string;
}

/** One of `allowed` (case-insensitive), undefined when absent; 400 for anything else. */
function oneOf<T extends string>(name: string, value: unknown, allowed: T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  const found = allowed.find((candidate) => typeof value === 'string' && candidate === value.toUpperCase());
  if (!found) throw badRequest(`${name} must be one of ${allowed.join(', ')}`, { details: { [name]: value } });
  return found;
}

/** Filters of `GET /suppressions`: `type`, `reason` (400 when unrecognised) and a `search` substring. */
function listFilter(query: Record<string, unknown>): SuppressionFilter {
  const search = typeof query.search === 'string' ? query.search.trim().toLowerCase() : '';
  return { type: oneOf('type', query.type, TYPES), reason: oneOf('reason', query.reason, REASONS), search: search || undefined };
}

/** `{ email }` or `{ domain }`, exactly one, as the type and lower-case value of the entry to add. */
function entryToAdd(body: unknown): { type: SuppressionType; value: string } {
  const { email, domain } = parseBody(SuppressionBody, body);
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

/** The `:value` path parameter as entries store it. */
const valueParam = (value: string) => value.trim().toLowerCase();

/** The suppression list (`/suppressions`): addresses and domains the project never sends to. */
export function suppressionsRouter(suppressions: SuppressionsService, cursors: Cursors): Router {
  const router = Router();
  const listCursors = cursors.for<SuppressionCursor>('suppressions');

  router.get('/suppressions', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const page = cursorParams(query, listCursors);
    const { rows, countTotal } = await suppressions.list(req.project!.id, listFilter(query), page);
    const result = await cursorPage(rows, page, (row) => ({ t: row.createdAtText, v: row.value }), countTotal);
    res.json({ ...result, data: result.data.map(suppressionView) });
  });

  router.post('/suppressions', async (req, res) => {
    const { type, value } = entryToAdd(req.body);
    const { entry, created } = await suppressions.add(req.project!.id, type, value);
    res.status(created ? 201 : 200).json(suppressionView(entry));
  });

  router.get('/suppressions/:value', async (req, res) => {
    res.json(suppressionView(await suppressions.get(req.project!.id, valueParam(req.params.value))));
  });

  router.delete('/suppressions/:value', async (req, res) => {
    await suppressions.remove(req.project!.id, valueParam(req.params.value));
    res.json({ success: true });
  });

  return router;
}
