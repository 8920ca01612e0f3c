import { endpoint, type RouteTable } from '../http/endpoint';
import { BareError } from '../http/errors';
import { cursorPage, cursorParams } from '../http/pagination';
import { intParam } from '../http/query';
import { uuidPathId } from '../http/validate';
import type { ContactCursor } from './contacts-queries';
import { contactView } from './contacts-service';
import { isPlainObject } from './data-rules';
import * as docs from './contacts-docs';
import {
  Contact,
  ContactFieldList,
  ContactFieldUsage,
  ContactFieldValues,
  ContactFieldValuesQuery,
  ContactListQuery,
  ContactLookup,
  ContactUpsertResult,
  DeletedContactField,
  LookupContactsBody,
  UpdateContactBody,
  UpsertContactBody,
} from './contacts-dtos';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `POST /contacts` answers every invalid field with the bare `{ error }` (SPEC "Errors"). */
function requireUpsertFields(body: unknown): void {
  const input = isPlainObject(body) ? body : {};
  if (typeof input.email !== 'string' || input.email.trim() === '') throw new BareError('email is required');
  if (!EMAIL.test(input.email.trim()) || input.email.length > 320) throw new BareError('email must be a valid email address');
  if (input.subscribed !== undefined && typeof input.subscribed !== 'boolean') throw new BareError('subscribed must be a boolean');
  if (input.data !== undefined && input.data !== null && !isPlainObject(input.data)) throw new BareError('data must be an object');
}

const contactId = (id: string) => uuidPathId(id, 'Contact');

/** Contacts and their fields (`/contacts`, `/contacts/fields`). */
export const contactsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Contact, ContactUpsertResult],
  schemas: { ContactDataPatch: docs.ContactDataPatch },
  endpoints: [
    endpoint<undefined, ContactListQuery>({
      method: 'get',
      path: '/contacts',
      credential: 'secret',
      query: ContactListQuery,
      doc: docs.listContacts,
      handle: async ({ services, project, query, cursors }) => {
        const sort = query.sort === 'email' ? 'email' : 'createdAt';
        const page = cursorParams(query, cursors.for<ContactCursor>(`contacts:${sort}`));
        const dir = query.dir === 'asc' ? 'asc' : 'desc';
        const subscribed = query.subscribed === 'true' ? true : query.subscribed === 'false' ? false : undefined;
        const { rows, countTotal } = await services.contacts.list(project.id, { search: query.search, subscribed }, sort, dir, page);
        const result = await cursorPage(rows, page, (row) => ({ v: row.sortValue, id: row.id }), countTotal);
        return { ...result, data: result.data.map(contactView) };
      },
    }),
    endpoint<UpsertContactBody>({
      method: 'post',
      path: '/contacts',
      credential: 'secret',
      body: UpsertContactBody,
      precheck: requireUpsertFields,
      doc: docs.upsertContact,
      handle: async ({ services, project, body, res }) => {
        const { email, subscribed, data } = body;
        const { contact, isNew } = await services.contacts.upsert(project.id, { email, subscribed, data: data ?? undefined }, true);
        res.status(isNew ? 201 : 200).json({ ...contactView(contact), _meta: { isNew, isUpdate: !isNew } });
      },
    }),
    endpoint<LookupContactsBody>({
      method: 'post',
      path: '/contacts/lookup',
      credential: 'secret',
      body: LookupContactsBody,
      doc: docs.lookupContacts,
      handle: async ({ services, project, body }): Promise<ContactLookup> => ({ data: await services.contacts.lookup(project.id, body.emails) }),
    }),
    endpoint({
      method: 'get',
      path: '/contacts/fields',
      credential: 'secret',
      doc: docs.listContactFields,
      handle: ({ services, project }): Promise<ContactFieldList> => services.fields.list(project.id),
    }),
    endpoint<undefined, ContactFieldValuesQuery>({
      method: 'get',
      path: '/contacts/fields/{field}/values',
      credential: 'secret',
      query: ContactFieldValuesQuery,
      doc: docs.listContactFieldValues,
      handle: ({ services, project, params, query }): Promise<ContactFieldValues> =>
        services.fields.values(project.id, params.field, intParam(query, 'limit', { fallback: 50, min: 1, max: 500, clamp: true })),
    }),
    endpoint({
      method: 'get',
      path: '/contacts/fields/{field}/usage',
      credential: 'secret',
      doc: docs.getContactFieldUsage,
      handle: ({ services, project, params }): Promise<ContactFieldUsage> => services.fields.usage(project.id, params.field),
    }),
    endpoint({
      method: 'delete',
      path: '/contacts/fields/{field}',
      credential: 'secret',
      doc: docs.deleteContactField,
      handle: ({ services, project, params }): Promise<DeletedContactField> => services.fields.delete(project.id, params.field),
    }),
    endpoint({
      method: 'get',
      path: '/contacts/{id}',
      credential: 'secret',
      doc: docs.getContact,
      handle: async ({ services, project, params }) => contactView(await services.contacts.get(project.id, contactId(params.id))),
    }),
    endpoint<UpdateContactBody>({
      method: 'patch',
      path: '/contacts/{id}',
      credential: 'secret',
      body: UpdateContactBody,
      doc: docs.updateContact,
      handle: async ({ services, project, params, body }) => contactView(await services.contacts.update(project.id, contactId(params.id), body)),
    }),
    endpoint({
      method: 'delete',
      path: '/contacts/{id}',
      credential: 'secret',
      doc: docs.deleteContact,
      handle: async ({ services, project, params }) => {
        await services.contacts.delete(project.id, contactId(params.id));
      },
    }),
  ],
};
