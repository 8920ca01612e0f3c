/**
 * `npm run bench:indexes`: the plans of the contact and event reads at production scale.
 * One million contacts in one project and 200,000 spread over 20 others, an event for
 * one contact in four; then every statement the code sends for each read (captured from
 * the real query functions) is run with `EXPLAIN (ANALYZE, FORMAT JSON)` and printed on
 * one line with its execution time.
 *
 * Lists, searches and lookups must read contacts and events through an index. A count
 * over a whole project may rightly read the table when the project is most of it: its
 * chosen plan is printed as is, and the plan with `enable_seqscan = off` must use an
 * index, which shows the index path exists. Exits with 1 when a check fails.
 */
import { Client } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { countContacts, listContacts, type ContactCursor, type ContactFilter, type ContactSort } from '../src/contacts/contacts-queries';
import { FieldsService } from '../src/contacts/fields-service';
import { listEvents, type EventCursor } from '../src/events/events-queries';
import { runBench, withScratch } from './support';

const BIG_PROJECT_CONTACTS = 1_000_000;
const OTHER_PROJECTS = 20;
const OTHER_PROJECT_CONTACTS = 10_000;
const PAGE = 21;
/** Tables whose reads are checked; other statements (contact_fields lookups) are printed only. */
const CHECKED_TABLES = ['contacts', 'events'];

/**
 * $2 contacts of project $1 in one statement: unique emails, one a second back from now,
 * 90 % subscribed, `age` on all, `plan` on 3 of 4, `company` on 1 of 10.
 */
const GENERATE_CONTACTS = `
  INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
  SELECT $1, 'user' || g || '@example' || (g % 97) || '.com', g % 10 <> 0,
         jsonb_build_object('age', 18 + g % 60)
           || CASE WHEN g % 4 <> 0 THEN jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[g % 3 + 1]) ELSE '{}'::jsonb END
           || CASE WHEN g % 10 = 0 THEN '{"company": "acme"}'::jsonb ELSE '{}'::jsonb END,
         now() - make_interval(secs => g), now()
    FROM generate_series(1, $2::int) AS g`;

/** An event for one contact in four, at the contact's creation, named after one of five by its second. */
const GENERATE_EVENTS = `
  INSERT INTO events (project_id, contact_id, name, source, created_at)
  SELECT project_id, id, (ARRAY['page.viewed', 'signup.completed', 'plan.upgraded', 'invoice.paid', 'feature.used'])[second % 5 + 1], 'API', created_at
    FROM contacts, LATERAL (SELECT extract(epoch FROM created_at)::bigint AS second) s
   WHERE second % 4 = 0`;

/** One node of an `EXPLAIN (FORMAT JSON)` plan. */
interface PlanNode {
  'Node Type': string;
  /** `Partial` or `Finalize` for the two halves of a parallel aggregate. */
  'Partial Mode'?: string;
  'Parallel Aware'?: boolean;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

/** A statement as the code sends it. */
interface Statement {
  sql: string;
  params: unknown[];
}

/** A read the code does: how it is checked, and the statements it sends. */
interface Shape {
  name: string;
  /** `indexed`: the chosen plan reads through an index; `aggregate`: a whole-project count, checked with `enable_seqscan = off`. */
  kind: 'indexed' | 'aggregate';
  statements: () => Promise<Statement[]>;
  /** After a cursor, the index must start at this column's value instead of filtering from the first row. */
  seek?: string;
}

/** Stands in for TypeORM's `query`: runs each statement on the database and keeps it to be explained. */
class Recorder {
  private statements: Statement[] = [];

  constructor(private readonly db: Client) {}

  query = async (sql: string, params: unknown[] = []) => {
    this.statements.push({ sql, params });
    return (await this.db.query(sql, params)).rows;
  };

  /** The statements a read sends. */
  async capture(read: () => Promise<unknown>): Promise<Statement[]> {
    this.statements = [];
    await read();
    return this.statements;
  }
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The plan on one line: `Limit > Index Scan Backward [contacts_project_created_idx]`, siblings in parentheses. */
function summarise(plan: PlanNode): string {
  const mode = plan['Partial Mode'] && plan['Partial Mode'] !== 'Simple' ? `${plan['Partial Mode']} ` : '';
  const type = `${mode}${plan['Parallel Aware'] ? 'Parallel ' : ''}${plan['Node Type']}${plan['Scan Direction'] === 'Backward' ? ' Backward' : ''}`;
  const target = plan['Index Name'] ? ` [${plan['Index Name']}]` : plan['Relation Name'] ? ` (${plan['Relation Name']})` : '';
  const children = (plan.Plans ?? []).map(summarise);
  const tail = children.length === 0 ? '' : children.length === 1 ? ` > ${children[0]}` : ` > (${children.join(' | ')})`;
  return `${type}${target}${tail}`;
}

/** The nodes that read a checked table, by relation or by index name. */
function checkedReads(plan: PlanNode): PlanNode[] {
  return nodes(plan).filter((node) =>
    CHECKED_TABLES.some((table) => node['Relation Name'] === table || node['Index Name']?.startsWith(`${table}_`)),
  );
}

/** Whether every read of a checked table goes through an index; undefined when the statement reads none. */
function readsThroughIndex(plan: PlanNode, seek: string | undefined): boolean | undefined {
  const reads = checkedReads(plan);
  if (reads.length === 0) return undefined;
  const indexed = reads.every((node) => node['Node Type'] !== 'Seq Scan') && reads.some((node) => node['Index Name']);
  return indexed && (!seek || reads.some((node) => node['Index Cond']?.includes(seek)));
}

async function explain(db: Client, statement: Statement): Promise<{ plan: PlanNode; ms: number }> {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.params);
  const [result] = rows[0]['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }];
  return { plan: result.Plan, ms: result['Execution Time'] };
}

/** One printed line: the verdict (`-` when the plan is shown, not checked), the shape, the time and the plan. */
function line(verdict: boolean | undefined, label: string, ms: number, plan: PlanNode): void {
  const mark = verdict === undefined ? '-' : verdict ? 'ok' : 'FAIL';
  console.log(`${mark.padEnd(5)}${label.padEnd(62)}${`${ms.toFixed(2)} ms`.padStart(12)}  ${summarise(plan)}`);
}

/** Explains and prints every statement of a shape; false when a checked plan does not read through an index. */
async function check(db: Client, shape: Shape): Promise<boolean> {
  const statements = await shape.statements();
  let passed = statements.length > 0;
  for (const [i, statement] of statements.entries()) {
    const label = statements.length > 1 ? `${shape.name} #${i + 1}` : shape.name;
    const chosen = await explain(db, statement);
    if (shape.kind === 'indexed') {
      const verdict = readsThroughIndex(chosen.plan, shape.seek);
      line(verdict, label, chosen.ms, chosen.plan);
      passed &&= verdict !== false;
      continue;
    }
    line(undefined, `${label}, chosen`, chosen.ms, chosen.plan);
    await db.query('SET enable_seqscan = off');
    const forced = await explain(db, statement).finally(() => db.query('RESET enable_seqscan'));
    const verdict = readsThroughIndex(forced.plan, undefined);
    if (verdict !== undefined) line(verdict, `${label}, enable_seqscan = off`, forced.ms, forced.plan);
    passed &&= verdict !== false;
  }
  return passed;
}

/** Fills the scratch database; returns the big project and a contact (with its event) from the middle of it. */
async function generate(db: Client) {
  const started = performance.now();
  const names = ['Index plans', ...Array.from({ length: OTHER_PROJECTS }, (_, i) => `Index plans, tenant ${i + 1}`)];
  const { rows: projects } = await db.query<{ id: string; name: string }>(
    'INSERT INTO projects (name) SELECT unnest($1::text[]) RETURNING id, name',
    [names],
  );
  const projectId = projects.find((project) => project.name === names[0])!.id;
  const others = projects.filter((project) => project.id !== projectId).map((project) => project.id);
  await db.query(GENERATE_CONTACTS, [projectId, BIG_PROJECT_CONTACTS]);
  for (const other of others) await db.query(GENERATE_CONTACTS, [other, OTHER_PROJECT_CONTACTS]);
  await db.query(GENERATE_EVENTS);
  await db.query(
    `INSERT INTO contact_fields (project_id, key, type) VALUES ($1, 'age', 'number'), ($1, 'plan', 'string'), ($1, 'company', 'string')`,
    [projectId],
  );
  const generated = performance.now();
  // The steady state autovacuum keeps: statistics, and the visibility map index-only scans need.
  await db.query('VACUUM ANALYZE contacts, events');
  const [counts] = (
    await db.query<{ contacts: number; events: number }>(
      'SELECT (SELECT count(*)::int FROM contacts) AS contacts, (SELECT count(*)::int FROM events) AS events',
    )
  ).rows;
  console.log(
    `Generated ${counts.contacts.toLocaleString('en')} contacts (${BIG_PROJECT_CONTACTS.toLocaleString('en')} in the project explained, ` +
      `${((BIG_PROJECT_CONTACTS / counts.contacts) * 100).toFixed(0)} %) and ${counts.events.toLocaleString('en')} events ` +
      `in ${((generated - started) / 1000).toFixed(1)} s, VACUUM ANALYZE in ${((performance.now() - generated) / 1000).toFixed(1)} s.`,
  );
  // Cursors from the middle of the lists: a contact of the project with an event, half-way down the event list.
  const { rows } = await db.query<{ id: string; email: string; created_at: string; event_id: string }>(
    `SELECT c.id, c.email, c.created_at::text, e.id AS event_id FROM events e JOIN contacts c ON c.id = e.contact_id
      WHERE e.project_id = $1 ORDER BY e.created_at DESC, e.id DESC
     OFFSET (SELECT count(*) / 2 FROM events WHERE project_id = $1) LIMIT 1`,
    [projectId],
  );
  return { projectId, contact: rows[0] };
}

async function main(): Promise<boolean> {
  return withScratch('indexes', async ({ databaseUrl, onCleanup }) => {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    onCleanup(() => db.end());
    const { projectId, contact } = await generate(db);

    const recorder = new Recorder(db);
    const manager = recorder as unknown as EntityManager;
    const fields = new FieldsService(recorder as unknown as DataSource);
    const events = recorder as unknown as DataSource;
    const afterCreated: ContactCursor = { v: contact.created_at, id: contact.id };
    const afterEmail: ContactCursor = { v: contact.email, id: contact.id };
    const afterEvent: EventCursor = { v: contact.created_at, id: contact.event_id };

    const list = (filter: ContactFilter, sort: ContactSort, dir: 'asc' | 'desc', cursor?: ContactCursor) => () =>
      recorder.capture(() => listContacts(manager, projectId, filter, sort, dir, PAGE, cursor));
    const count = (filter: ContactFilter) => () => recorder.capture(() => countContacts(manager, projectId, filter));
    const eventList = (filter: { name?: string; contactId?: string }, cursor?: EventCursor) => () =>
      recorder.capture(() => listEvents(events, projectId, filter, { limit: PAGE, cursor }));

    const shapes: Shape[] = [
      { name: 'contacts by createdAt desc, first page', kind: 'indexed', statements: list({}, 'createdAt', 'desc') },
      { name: 'contacts by createdAt desc, after a cursor', kind: 'indexed', statements: list({}, 'createdAt', 'desc', afterCreated), seek: 'created_at' },
      { name: 'contacts by email asc, first page', kind: 'indexed', statements: list({}, 'email', 'asc') },
      { name: 'contacts by email asc, after a cursor', kind: 'indexed', statements: list({}, 'email', 'asc', afterEmail), seek: 'email' },
      { name: 'contacts with search (email substring)', kind: 'indexed', statements: list({ search: '12345' }, 'createdAt', 'desc') },
      { name: 'contact count with search', kind: 'indexed', statements: count({ search: '12345' }) },
      { name: 'contacts with the subscribed filter', kind: 'indexed', statements: list({ subscribed: false }, 'createdAt', 'desc') },
      { name: 'contact count (first page total)', kind: 'aggregate', statements: count({}) },
      { name: 'contact count with the subscribed filter', kind: 'aggregate', statements: count({ subscribed: false }) },
      { name: 'field coverage', kind: 'aggregate', statements: () => recorder.capture(() => fields.list(projectId)) },
      { name: 'events, first page', kind: 'indexed', statements: eventList({}) },
      { name: 'events, after a cursor', kind: 'indexed', statements: eventList({}, afterEvent), seek: 'created_at' },
      { name: 'events of one name', kind: 'indexed', statements: eventList({ name: 'invoice.paid' }) },
      { name: 'events of one contact', kind: 'indexed', statements: eventList({ contactId: contact.id }) },
      {
        name: 'event count (first page total)',
        kind: 'aggregate',
        statements: async () => recorder.capture((await listEvents(events, projectId, {}, { limit: PAGE, cursor: undefined })).countTotal),
      },
    ];

    console.log(`\nok / FAIL: reads contacts and events through an index; -: the planner's own choice for a whole-project count, shown only\n`);
    let passed = true;
    for (const shape of shapes) passed = (await check(db, shape)) && passed;
    console.log(`\n${passed ? 'Every read has an index path.' : 'Some reads have no index path (FAIL above).'}`);
    return passed;
  });
}

runBench(main);
