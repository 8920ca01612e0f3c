import type { EntityManager } from 'typeorm';
import { prepared, runPrepared } from '../db/prepared';
import { Contact } from '../entities/contact';
import { inferType } from './data-rules';
import { containsPattern } from '../db/like';
import { suppressedSql } from '../sending/send-queries';
import type { ContactFacts } from '../webhooks/source-events';
import { hasEndpointSql } from '../webhooks/sources-queries';

/** One contact to create or update in a batch; emails are already lower-case and unique in the batch. */
export interface UpsertItem {
  email: string;
  set: Record<string, unknown>;
  unset: string[];
  /** Explicit subscription state; undefined keeps an existing contact's and uses the default for a new one. */
  subscribed: boolean | undefined;
}

/** What a batch upsert did to one contact. */
export interface UpsertOutcome {
  id: string;
  email: string;
  isNew: boolean;
  subscribedBefore: boolean | null;
  subscribed: boolean;
  /** Whether the write changed the contact's data or subscription (always, for a new one). */
  changed: boolean;
  /** The contact's data after the write, read only when the project has an enabled webhook endpoint. */
  data: Record<string, unknown> | null;
}

interface Row {
  id: string;
  email: string;
  old_subscribed: boolean | null;
  subscribed: boolean;
  is_new: boolean;
  changed: boolean;
  data: Record<string, unknown> | null;
  contacts_cap: number | null;
  hooked: boolean;
}

/**
 * Updates the contacts of the batch that exist (locked in email order, each one's subscription
 * read before the change) and inserts the others, in one statement. A contact whose data and
 * subscription the write leaves as they are is not written at all (its `updatedAt` stays; no
 * row version, index entries or WAL for an event that changes nothing of its contact): only the
 * changed ones are updated, and the other locked ones answered as they are. A row another transaction
 * inserted after this statement's snapshot is skipped by the insert and left to the caller's
 * next round; rows are inserted in email order, so two batches never wait on each other in a circle.
 * The emails are given again as an array: Postgres plans `jsonb_to_recordset` for 100 rows
 * whatever it holds, and would then scan all of the project's contacts twice (to lock them and
 * to update them) instead of looking the batch's up by `(project_id, email)`.
 */
const UPSERT = prepared(`WITH i AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS i(email text, set jsonb, unset text[], subscribed boolean)
     ), locked AS (
       SELECT c.id, c.email, c.subscribed AS old_subscribed, c.data AS old_data,
              (c.data || i.set) - coalesce(i.unset, '{}'::text[]) AS new_data, coalesce(i.subscribed, c.subscribed) AS new_subscribed
         FROM contacts c JOIN i ON c.email = i.email
        WHERE c.project_id = $1 AND c.email = ANY($4::text[])
        ORDER BY c.email
        FOR UPDATE OF c
     ), updated AS (
       UPDATE contacts c
          SET data = l.new_data, subscribed = l.new_subscribed, updated_at = now()
         FROM locked l
        WHERE c.id = l.id AND (l.new_data IS DISTINCT FROM l.old_data OR l.new_subscribed IS DISTINCT FROM l.old_subscribed)
        RETURNING c.id, c.email, l.old_subscribed, c.subscribed, false AS is_new, true AS changed, c.data
     ), unchanged AS (
       SELECT l.id, l.email, l.old_subscribed, l.old_subscribed AS subscribed, false AS is_new, false AS changed, l.old_data AS data
         FROM locked l
        WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.id = l.id)
     ), inserted AS (
       INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1, i.email, coalesce(i.subscribed, $3), i.set FROM i
        WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.email = i.email)
        ORDER BY i.email
       ON CONFLICT (project_id, email) DO NOTHING
       RETURNING id, email, NULL::boolean AS old_subscribed, subscribed, true AS is_new, true AS changed, data
     ), project AS (
       SELECT (SELECT contacts FROM billing_limits WHERE project_id = $1) AS contacts_cap, ${hasEndpointSql('$1')} AS hooked
     )
     SELECT u.id, u.email, u.old_subscribed, u.subscribed, u.is_new, u.changed, CASE WHEN p.hooked THEN u.data END AS data, p.contacts_cap, p.hooked
       FROM (SELECT * FROM updated UNION ALL SELECT * FROM unchanged UNION ALL SELECT * FROM inserted) u CROSS JOIN project p`);

/** One round of the batch upsert (UPSERT, above). */
async function upsertRound(manager: EntityManager, projectId: string, items: UpsertItem[], subscribedByDefault: boolean): Promise<Row[]> {
  return runPrepared(manager, UPSERT, [projectId, JSON.stringify(items), subscribedByDefault, items.map((item) => item.email)]) as Promise<Row[]>;
}

/**
 * What a batch upsert did: each item's outcome, in order, the project's contacts cap as its
 * statement read it (null: none), and whether the project has an enabled webhook endpoint.
 */
export interface UpsertResult {
  outcomes: UpsertOutcome[];
  contactsCap: number | null;
  hooked: boolean;
}

/**
 * Creates or updates a batch of contacts in the caller's transaction, with patch semantics
 * on `data`, and reports each contact's subscription before and after.
 */
export async function upsertContacts(
  manager: EntityManager,
  projectId: string,
  items: UpsertItem[],
  subscribedByDefault: boolean,
): Promise<UpsertResult> {
  const outcomes = new Map<string, UpsertOutcome>();
  let contactsCap: number | null = null;
  let hooked = false;
  let pending = items;
  for (let attempt = 0; pending.length > 0 && attempt < 3; attempt += 1) {
    for (const row of await upsertRound(manager, projectId, pending, subscribedByDefault)) {
      outcomes.set(row.email, {
        id: row.id,
        email: row.email,
        isNew: row.is_new,
        subscribedBefore: row.old_subscribed,
        subscribed: row.subscribed,
        changed: row.changed,
        data: row.data,
      });
      contactsCap = row.contacts_cap;
      hooked = row.hooked;
    }
    pending = pending.filter((item) => !outcomes.has(item.email));
  }
  if (pending.length > 0) throw new Error(`could not upsert ${pending.length} contacts after concurrent inserts`);
  return { outcomes: items.map((item) => outcomes.get(item.email)!), contactsCap, hooked };
}

/** Records the type of every custom key seen for the first time in this project (sticky afterwards); returns the keys that were new. */
export async function recordFieldTypes(manager: EntityManager, projectId: string, values: Record<string, unknown>): Promise<string[]> {
  // In one order everywhere, so two transactions recording the same new keys never wait on each other in a circle.
  const keys = Object.keys(values).sort();
  if (keys.length === 0) return [];
  const added: { key: string }[] = await manager.query(
    `INSERT INTO contact_fields (project_id, key, type)
     SELECT $1, k, t FROM unnest($2::text[], $3::text[]) AS f(k, t)
     ON CONFLICT (project_id, key) DO NOTHING
     RETURNING key`,
    [projectId, keys, keys.map((key) => inferType(values[key]))],
  );
  return added.map((row) => row.key);
}

/**
 * How many custom keys the project has, counted under a per-project advisory lock held until
 * the transaction ends: a count taken after it sees every key committed by anyone before.
 */
export async function countFieldsLocked(manager: EntityManager, projectId: string): Promise<number> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`herald.contact-fields:${projectId}`]);
  const [{ count }]: { count: number }[] = await manager.query('SELECT count(*)::int AS count FROM contact_fields WHERE project_id = $1', [projectId]);
  return count;
}

/** One contact of a project, or null. */
export function findContact(manager: EntityManager, projectId: string, id: string): Promise<Contact | null> {
  return manager.findOneBy(Contact, { projectId, id });
}

/** One contact of a project by email (lower-case), or null. */
export function findContactByEmail(manager: EntityManager, projectId: string, email: string): Promise<Contact | null> {
  return manager.findOneBy(Contact, { projectId, email });
}

/** One contact of a project, locked for update until the transaction ends, or null. */
export function lockContact(manager: EntityManager, projectId: string, id: string): Promise<Contact | null> {
  return manager.findOne(Contact, { where: { projectId, id }, lock: { mode: 'pessimistic_write' } });
}

/** Changes a contact's email (already lower-case and free in its project). */
export async function setContactEmail(manager: EntityManager, id: string, email: string): Promise<void> {
  await manager.update(Contact, { id }, { email });
}

/** The id and email of each of the ids that is a contact of the project. */
export function findEmailsByIds(manager: EntityManager, projectId: string, ids: string[]): Promise<{ id: string; email: string }[]> {
  return manager.query('SELECT id, email FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}

/** The id and email of each of the (lower-case) emails that is a contact of the project. */
export function findIdsByEmails(manager: EntityManager, projectId: string, emails: string[]): Promise<{ id: string; email: string }[]> {
  return manager.query('SELECT id, email FROM contacts WHERE project_id = $1 AND email = ANY($2::text[])', [projectId, emails]);
}

/** Deletes the project's contacts among the ids (their events go with them); returns the contacts deleted, as they were. */
export async function deleteContacts(manager: EntityManager, projectId: string, ids: string[]): Promise<ContactFacts[]> {
  const [rows]: [ContactFacts[]] = await manager.query(
    'DELETE FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[]) RETURNING id, email, subscribed, data',
    [projectId, ids],
  );
  return rows;
}

/** Filters of the contact list. */
export interface ContactFilter {
  search?: string;
  subscribed?: boolean;
}

/** A keyset position in the contact list. */
export interface ContactCursor {
  v: string;
  id: string;
}

export type ContactSort = 'createdAt' | 'email';

function filterSql(filter: ContactFilter, params: unknown[]): string {
  const clauses = ['c.project_id = $1'];
  if (filter.search) {
    params.push(containsPattern(filter.search.toLowerCase()));
    clauses.push(`c.email LIKE $${params.length}`);
  }
  if (filter.subscribed !== undefined) {
    params.push(filter.subscribed);
    clauses.push(`c.subscribed = $${params.length}`);
  }
  return clauses.join(' AND ');
}

/** A contact row with the exact keyset value of its sort column. */
export interface ContactRow extends Contact {
  sortValue: string;
}

/** A page of contacts in keyset order: (created_at, id) or (email, id), ascending or descending. */
export async function listContacts(
  manager: EntityManager,
  projectId: string,
  filter: ContactFilter,
  sort: ContactSort,
  dir: 'asc' | 'desc',
  limit: number,
  cursor: ContactCursor | undefined,
): Promise<ContactRow[]> {
  const params: unknown[] = [projectId];
  let where = filterSql(filter, params);
  const column = sort === 'email' ? 'c.email' : 'c.created_at';
  if (cursor) {
    params.push(cursor.v, cursor.id);
    const cast = sort === 'email' ? 'text' : 'timestamptz';
    where += ` AND (${column}, c.id) ${dir === 'asc' ? '>' : '<'} ($${params.length - 1}::${cast}, $${params.length}::uuid)`;
  }
  params.push(limit);
  const rows: Record<string, unknown>[] = await manager.query(
    `SELECT c.*, ${column}::text AS sort_value FROM contacts c
      WHERE ${where} ORDER BY ${column} ${dir}, c.id ${dir} LIMIT $${params.length}`,
    params,
  );
  return rows.map((row) => ({ ...contactFromRow(row), sortValue: row.sort_value as string }));
}

/** Maps a raw `contacts` row to the entity shape. */
export function contactFromRow(row: Record<string, unknown>): Contact {
  return Object.assign(new Contact(), {
    id: row.id,
    projectId: row.project_id,
    email: row.email,
    subscribed: row.subscribed,
    snoozedUntil: row.snoozed_until,
    data: row.data,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** How many contacts match the filter. */
export async function countContacts(manager: EntityManager, projectId: string, filter: ContactFilter): Promise<number> {
  const params: unknown[] = [projectId];
  const where = filterSql(filter, params);
  const [{ count }] = await manager.query(`SELECT count(*)::int AS count FROM contacts c WHERE ${where}`, params);
  return count;
}

/** What a contact's public pages read: its project's name, its email and subscription, and whether it is suppressed. */
export interface PreferencesRow {
  project_id: string;
  project_name: string;
  email: string;
  subscribed: boolean;
  suppressed: boolean;
}

/** The preferences row of a contact (of any project: its signed link names it), or undefined. */
export async function findContactPreferences(manager: EntityManager, contactId: string): Promise<PreferencesRow | undefined> {
  const [row]: PreferencesRow[] = await manager.query(
    `SELECT c.project_id, p.name AS project_name, c.email, c.subscribed,
            ${suppressedSql('c.project_id', 'c.email')} AS suppressed
       FROM contacts c JOIN projects p ON p.id = c.project_id
      WHERE c.id = $1`,
    [contactId],
  );
  return row;
}
