import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsObject, IsOptional, IsString } from 'class-validator';
import { Router } from 'express';
import { contactView, type ContactsService } from './contacts-service';
import type { ContactCursor, ContactSort } from './contacts-queries';
import type { FieldsService } from './fields-service';
import { isPlainObject } from './data-rules';
import { BareError, notFound } from '../http/errors';
import type { Cursors } from '../http/cursors';
import { cursorPage, cursorParams } from '../http/pagination';
import { intParam } from '../http/query';
import { isUuid, Optional, parseBody } from '../http/validate';

class ContactPatchBody {
  @Optional() @IsEmail({}, { message: 'email must be a valid email address' }) email?: string;
  @Optional() @IsBoolean() subscribed?: boolean;
  @IsOptional() @IsObject() data?: Record<string, unknown>;
}

class LookupBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(500) @IsString({ each: true }) emails: string[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Validates `POST /contacts`, whose failures answer with the bare `{ error }` body. */
function upsertBody(body: unknown): { email: string; subscribed?: boolean; data?: Record<string, unknown> } {
  const input = isPlainObject(body) ? body : {};
  if (typeof input.email !== 'string' || input.email.trim() === '') throw new BareError('email is required');
  if (!EMAIL.test(input.email.trim()) || input.email.length > 320) throw new BareError('email must be a valid email address');
  if (input.subscribed !== undefined && typeof input.subscribed !== 'boolean') throw new BareError('subscribed must be a boolean');
  if (input.data !== undefined && input.data !== null && !isPlainObject(input.data)) throw new BareError('data must be an object');
  return { email: input.email, subscribed: input.subscribed, data: (input.data as Record<string, unknown>) ?? undefined };
}

const contactId = (id: string) => {
  if (!isUuid(id)) throw notFound('Contact');
  return id;
};

/** Contacts and their fields (`/contacts`, `/contacts/fields`). */
export function contactsRouter(contacts: ContactsService, fields: FieldsService, cursors: Cursors): Router {
  const router = Router();
  const listCursors = { createdAt: cursors.for<ContactCursor>('contacts:createdAt'), email: cursors.for<ContactCursor>('contacts:email') };

  router.get('/contacts', async (req, res) => {
    const query = req.query as Record<string, string | undefined>;
    const sort: ContactSort = query.sort === 'email' ? 'email' : 'createdAt';
    const page = cursorParams(query, listCursors[sort]);
    const dir = query.dir === 'asc' ? 'asc' : 'desc';
    const subscribed = query.subscribed === 'true' ? true : query.subscribed === 'false' ? false : undefined;
    const { rows, countTotal } = await contacts.list(req.project!.id, { search: query.search, subscribed }, sort, dir, page);
    const result = await cursorPage(rows, page, (row) => ({ v: row.sortValue, id: row.id }), countTotal);
    res.json({ ...result, data: result.data.map(contactView) });
  });

  router.post('/contacts', async (req, res) => {
    const { contact, isNew } = await contacts.upsert(req.project!.id, upsertBody(req.body), true);
    res.status(isNew ? 201 : 200).json({ ...contactView(contact), _meta: { isNew, isUpdate: !isNew } });
  });

  router.post('/contacts/lookup', async (req, res) => {
    const body = parseBody(LookupBody, req.body);
    res.json({ data: await contacts.lookup(req.project!.id, body.emails) });
  });

  router.get('/contacts/fields', async (req, res) => {
    res.json(await fields.list(req.project!.id));
  });

  router.get('/contacts/fields/:field/values', async (req, res) => {
    const limit = intParam(req.query, 'limit', { fallback: 50, min: 1, max: 500, clamp: true });
    res.json(await fields.values(req.project!.id, req.params.field, limit));
  });

  router.get('/contacts/fields/:field/usage', async (req, res) => {
    res.json(await fields.usage(req.project!.id, req.params.field));
  });

  router.delete('/contacts/fields/:field', async (req, res) => {
    res.json(await fields.delete(req.project!.id, req.params.field));
  });

  router.get('/contacts/:id', async (req, res) => {
    res.json(contactView(await contacts.get(req.project!.id, contactId(req.params.id))));
  });

  router.patch('/contacts/:id', async (req, res) => {
    const body = parseBody(ContactPatchBody, req.body);
    res.json(contactView(await contacts.update(req.project!.id, contactId(req.params.id), body)));
  });

  router.delete('/contacts/:id', async (req, res) => {
    await contacts.delete(req.project!.id, contactId(req.params.id));
    res.status(204).end();
  });

  return router;
}
