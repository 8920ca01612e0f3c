import type { EntityManager } from 'typeorm';
import { audienceWhere } from '../conditions/compile';
import { referencedFields, type Condition } from '../conditions/condition';
import { contactFromRow } from '../contacts/contacts-queries';
import type { Contact } from '../entities/contact';
import { EventRecord } from '../entities/event-record';
import { Segment } from '../entities/segment';
import { FIRST_RETRY_SECONDS } from '../events/dispatches-queries';
import { notFound } from '../http/errors';
import type { OffsetParams } from '../http/pagination';

/**
 * The SQL of segments: slugs, counts, member pages, stored membership and its set
 * differences. Membership lookups use the `segment_members` primary key
 * (segment_id, contact_id) and its contact index; segments are read by `segments_project_idx`.
 */

/** Every segment of the project, newest first. */
export function projectSegments(manager: EntityManager, projectId: string): Promise<Segment[]> {
  return manager.find(Segment, { where: { projectId }, order: { createdAt: 'DESC', id: 'DESC' } });
}

/** One segment of the project, optionally locked for update; 404 otherwise. */
export async function findSegment(manager: EntityManager, projectId: string, id: string, lock = false): Promise<Segment> {
  const segment = await manager.findOne(Segment, { where: { projectId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  if (!segment) throw notFound('Segment');
  return segment;
}

/** A segment of any project by id, or null. */
export function segmentById(manager: EntityManager, id: string): Promise<Segment | null> {
  return manager.findOneBy(Segment, { id });
}

/** A new segment, not stored yet. */
export function newSegment(manager: EntityManager, fields: Omit<Segment, 'id' | 'slug' | 'createdAt' | 'updatedAt'>): Segment {
  return manager.create(Segment, fields);
}

/** Stores a new segment or the changes to a loaded one. */
export function saveSegment(manager: EntityManager, segment: Segment): Promise<Segment> {
  return manager.save(segment);
}

/** Deletes a segment with its stored members. */
export async function deleteSegment(manager: EntityManager, id: string): Promise<void> {
  await manager.delete(Segment, { id });
}

/** A `WHERE` over `contacts c` with its parameters, `$1` being the project. */
export interface ContactSelection {
  where: string;
  params: unknown[];
}

/** A segment's slug: the name lower-cased, runs outside [a-z0-9] as one `-`, trimmed of `-` (CONTRACT section 5). */
export function slugify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/**
 * A slug no other segment of the project uses: the name's slug (`segment` when it has no
 * letter or digit), else the first free `<slug>-2`, `<slug>-3`, ... Call it in the transaction
 * that inserts the segment: it holds a per-project lock until that transaction ends.
 */
export async function allocateSlug(manager: EntityManager, projectId: string, name: string): Promise<string> {
  const base = slugify(name) || 'segment';
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('segment-slug:' || $1, 0))`, [projectId]);
  const rows: { slug: string }[] = await manager.query(
    `SELECT slug FROM segments WHERE project_id = $1 AND (slug = $2 OR slug LIKE $3)`,
    [projectId, base, `${base}-%`],
  );
  const taken = new Set(rows.map((row) => row.slug));
  let slug = base;
  for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
  return slug;
}

/** The contacts of a segment: those matching its condition (DYNAMIC) or its stored members (STATIC). */
export async function segmentContacts(manager: EntityManager, segment: Segment): Promise<ContactSelection> {
  if (segment.type === 'DYNAMIC') return audienceWhere(manager, segment.projectId, segment.condition!);
  return {
    where: 'c.project_id = $1 AND EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = $2 AND m.contact_id = c.id)',
    params: [segment.projectId, segment.id],
  };
}

/** How many contacts a selection holds. */
export async function countContacts(manager: EntityManager, selection: ContactSelection): Promise<number> {
  const [{ count }] = await manager.query(`SELECT count(*)::int AS count FROM contacts c WHERE ${selection.where}`, selection.params);
  return count;
}

/** A page of a selection, newest contacts first, with the selection's total. */
export async function contactsPage(
  manager: EntityManager,
  selection: ContactSelection,
  page: OffsetParams,
): Promise<{ rows: Contact[]; total: number }> {
  const params = [...selection.params, page.pageSize, page.offset];
  // The page and the total are independent reads: run them on two connections at once.
  const [rows, total] = await Promise.all([
    manager.query(
      `SELECT c.* FROM contacts c WHERE ${selection.where}
        ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    ) as Promise<Record<string, unknown>[]>,
    countContacts(manager, selection),
  ]);
  return { rows: rows.map(contactFromRow), total };
}

/** Stores a segment's count of stored members and returns it. */
export async function recountMembers(manager: EntityManager, segmentId: string): Promise<number> {
  const [[row]]: [{ member_count: number }[]] = await manager.query(
    `UPDATE segments SET member_count = (SELECT count(*) FROM segment_members WHERE segment_id = $1)
      WHERE id = $1 RETURNING member_count`,
    [segmentId],
  );
  return row?.member_count ?? 0;
}

/** Stores a segment's cached count. */
export async function setMemberCount(manager: EntityManager, segmentId: string, count: number): Promise<void> {
  await manager.query('UPDATE segments SET member_count = $2 WHERE id = $1', [segmentId, count]);
}

/** The ids of a project's contacts with the given emails (already lower-case). */
export async function contactIdsByEmail(manager: EntityManager, projectId: string, emails: string[]): Promise<Map<string, string>> {
  const rows: { id: string; email: string }[] = await manager.query(
    'SELECT id, email FROM contacts WHERE project_id = $1 AND email = ANY($2::text[])',
    [projectId, emails],
  );
  return new Map(rows.map((row) => [row.email, row.id]));
}

/** Adds contacts to a segment's stored members; returns the ids that were not members yet. */
export async function insertMembers(manager: EntityManager, segmentId: string, contactIds: string[]): Promise<string[]> {
  const rows: { contact_id: string }[] = await manager.query(
    `INSERT INTO segment_members (segment_id, contact_id) SELECT $1, unnest($2::uuid[])
     ON CONFLICT DO NOTHING RETURNING contact_id`,
    [segmentId, contactIds],
  );
  return rows.map((row) => row.contact_id);
}

/** Removes the contacts with the given emails (lower-case) from a segment's stored members; returns the ids removed. */
export async function deleteMembersByEmail(manager: EntityManager, segment: Segment, emails: string[]): Promise<string[]> {
  const [rows]: [{ contact_id: string }[]] = await manager.query(
    `DELETE FROM segment_members m USING contacts c
      WHERE m.segment_id = $1 AND c.id = m.contact_id AND c.project_id = $2 AND c.email = ANY($3::text[])
      RETURNING m.contact_id`,
    [segment.id, segment.projectId, emails],
  );
  return rows.map((row) => row.contact_id);
}

/** Forgets every stored member of a segment. */
export async function clearMembers(manager: EntityManager, segmentId: string): Promise<void> {
  await manager.query('DELETE FROM segment_members WHERE segment_id = $1', [segmentId]);
}

/**
 * Which part of a membership difference to apply: a page after a keyset position
 * (a full computation), or only some contacts (a per-contact re-evaluation).
 */
export type DiffScope = { after: string | null; limit: number } | { contactIds: string[] };

/** What one step of a membership difference changed, and where the next page starts (null at the end). */
export interface DiffStep {
  contactIds: string[];
  next: string | null;
}

function scoped(scope: DiffScope, column: string, params: unknown[]): { filter: string; tail: string } {
  if ('contactIds' in scope) {
    params.push(scope.contactIds);
    return { filter: ` AND ${column} = ANY($${params.length}::uuid[])`, tail: '' };
  }
  params.push(scope.after ?? '00000000-0000-0000-0000-000000000000', scope.limit);
  return { filter: ` AND ${column} > $${params.length - 1}::uuid`, tail: ` ORDER BY ${column} LIMIT $${params.length}` };
}

interface PageRow {
  last: string | null;
  scanned: number;
}

/** Where the next page starts: after the last candidate of a full page; null when the scope is done. */
function nextPage(scope: DiffScope, row: PageRow): string | null {
  return 'limit' in scope && row.scanned === scope.limit ? row.last : null;
}

/** Stores as members the matching contacts that are not members yet; returns those that entered. */
export async function enterMatching(manager: EntityManager, segmentId: string, matching: ContactSelection, scope: DiffScope): Promise<DiffStep> {
  const params = [...matching.params, segmentId];
  const segment = `$${params.length}`;
  const { filter, tail } = scoped(scope, 'c.id', params);
  const [row]: (PageRow & { entered: string[] })[] = await manager.query(
    `WITH candidates AS (
       SELECT c.id FROM contacts c
        WHERE ${matching.where}${filter}
          AND NOT EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${segment} AND m.contact_id = c.id)${tail}
     ), entered AS (
       INSERT INTO segment_members (segment_id, contact_id) SELECT ${segment}, id FROM candidates ORDER BY id
       ON CONFLICT DO NOTHING RETURNING contact_id
     )
     SELECT (SELECT id FROM candidates ORDER BY id DESC LIMIT 1) AS last,
            (SELECT count(*)::int FROM candidates) AS scanned,
            ARRAY(SELECT contact_id::text FROM entered) AS entered`,
    params,
  );
  return { contactIds: row.entered, next: nextPage(scope, row) };
}

/** Removes the stored members that no longer match; returns those that left. */
export async function exitNonMatching(manager: EntityManager, segmentId: string, matching: ContactSelection, scope: DiffScope): Promise<DiffStep> {
  const params = [...matching.params, segmentId];
  const segment = `$${params.length}`;
  const { filter, tail } = scoped(scope, 'm.contact_id', params);
  const [row]: (PageRow & { exited: string[] })[] = await manager.query(
    `WITH candidates AS (
       SELECT m.contact_id FROM segment_members m
        WHERE m.segment_id = ${segment}${filter}
          AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = m.contact_id AND ${matching.where})${tail}
     ), exited AS (
       DELETE FROM segment_members d USING candidates
        WHERE d.segment_id = ${segment} AND d.contact_id = candidates.contact_id
        RETURNING d.contact_id
     )
     SELECT (SELECT contact_id FROM candidates ORDER BY contact_id DESC LIMIT 1) AS last,
            (SELECT count(*)::int FROM candidates) AS scanned,
            ARRAY(SELECT contact_id::text FROM exited) AS exited`,
    params,
  );
  return { contactIds: row.exited, next: nextPage(scope, row) };
}

/** What moveMembers changed: the entry and exit events it stored, and the dispatch row queued for them (null when nobody moved). */
export interface MembershipMoves {
  events: EventRecord[];
  dispatchId: string | null;
}

/**
 * Brings a segment's stored membership in line with its condition for some contacts, in one
 * statement (so atomically, without a transaction of its own): the matching non-members enter,
 * the members that no longer match exit, each move stores its `segment.<slug>.entry|exit` event
 * (`data` given) and the events are queued for dispatch (src/events/dispatches-queries.ts). An
 * insert that found the member already there, or a delete that found it gone, stores nothing, so
 * concurrent re-evaluations never fire an event twice.
 */
export async function moveMembers(
  manager: EntityManager,
  segment: Segment,
  matching: ContactSelection,
  contactIds: string[],
  eventData: Record<string, unknown>,
): Promise<MembershipMoves> {
  const params = [...matching.params, segment.id, contactIds, `segment.${segment.slug}.entry`, `segment.${segment.slug}.exit`, JSON.stringify(eventData), FIRST_RETRY_SECONDS];
  const n = matching.params.length;
  const [id, ids, entry, exit, data, retry] = [1, 2, 3, 4, 5, 6].map((i) => `$${n + i}`);
  const [row]: { events: { id: string; contact_id: string; name: string; data: Record<string, unknown>; created_at: string }[]; dispatch: string | null }[] =
    await manager.query(
      `WITH entered AS (
         INSERT INTO segment_members (segment_id, contact_id)
         SELECT ${id}, c.id FROM contacts c
          WHERE ${matching.where} AND c.id = ANY(${ids}::uuid[])
            AND NOT EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${id} AND m.contact_id = c.id)
          ORDER BY c.id
         ON CONFLICT DO NOTHING RETURNING contact_id
       ), exited AS (
         DELETE FROM segment_members d
          WHERE d.segment_id = ${id} AND d.contact_id = ANY(${ids}::uuid[])
            AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = d.contact_id AND ${matching.where})
         RETURNING d.contact_id
       ), stored AS (
         INSERT INTO events (project_id, contact_id, name, data, source)
         SELECT $1, contact_id, ${entry}, ${data}::jsonb, 'SYSTEM' FROM entered
         UNION ALL
         SELECT $1, contact_id, ${exit}, ${data}::jsonb, 'SYSTEM' FROM exited
         RETURNING id, contact_id, name, data, created_at
       ), queued AS (
         INSERT INTO event_dispatches (project_id, event_ids, contact_ids, retry_at)
         SELECT $1, array_agg(id), '{}'::uuid[], now() + make_interval(secs => ${retry}) FROM stored HAVING count(*) > 0
         RETURNING id
       )
       SELECT (SELECT json_agg(stored) FROM stored) AS events, (SELECT id::text FROM queued) AS dispatch`,
      params,
    );
  const events = (row.events ?? []).map((event) =>
    Object.assign(new EventRecord(), {
      id: event.id,
      projectId: segment.projectId,
      contactId: event.contact_id,
      name: event.name,
      data: event.data,
      source: 'SYSTEM' as const,
      createdAt: new Date(event.created_at),
    }),
  );
  return { events, dispatchId: row.dispatch };
}

/** A project's DYNAMIC segments with `trackMembership`, oldest first. */
export function trackedSegments(manager: EntityManager, projectId: string): Promise<Segment[]> {
  return manager.find(Segment, { where: { projectId, type: 'DYNAMIC', trackMembership: true }, order: { createdAt: 'ASC', id: 'ASC' } });
}

/** The ids of tracked segments of every project after a keyset position, in id order. */
export async function trackedSegmentIds(manager: EntityManager, after: string | null, limit: number): Promise<string[]> {
  const rows: { id: string }[] = await manager.query(
    `SELECT id FROM segments WHERE type = 'DYNAMIC' AND track_membership AND ($1::uuid IS NULL OR id > $1::uuid)
      ORDER BY id LIMIT $2`,
    [after, limit],
  );
  return rows.map((row) => row.id);
}

/** Whether a campaign that is SCHEDULED or SENDING uses the segment. */
export async function segmentInUse(manager: EntityManager, segmentId: string): Promise<boolean> {
  const rows = await manager.query(`SELECT 1 FROM campaigns WHERE segment_id = $1 AND status IN ('SCHEDULED', 'SENDING') LIMIT 1`, [segmentId]);
  return rows.length > 0;
}

/** The segments of a project whose condition references a field that `matches` accepts, newest first. */
export async function segmentsReferencing(
  manager: EntityManager,
  projectId: string,
  matches: (field: string) => boolean,
): Promise<{ id: string; name: string }[]> {
  const rows: { id: string; name: string; condition: Condition }[] = await manager.query(
    'SELECT id, name, condition FROM segments WHERE project_id = $1 AND condition IS NOT NULL ORDER BY created_at DESC, id DESC',
    [projectId],
  );
  return rows.filter((row) => referencedFields(row.condition).some(matches)).map((row) => ({ id: row.id, name: row.name }));
}
