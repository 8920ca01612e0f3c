import type { DataSource } from 'typeorm';
import { audienceWhere } from '../../src/conditions/compile';
import { contactMatches } from '../../src/conditions/condition-queries';
import { parseCondition, type Filter } from '../../src/conditions/condition';
import { ContactsService } from '../../src/contacts/contacts-service';
import { parseDataPatch } from '../../src/contacts/data-rules';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';

describe('the condition engine', () => {
  let dataSource: DataSource;
  let projectId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
    [{ id: projectId }] = await dataSource.query(`INSERT INTO projects (name) VALUES ('conditions') RETURNING id`);
    const contacts = new ContactsService(dataSource, new EventDispatcher());
    const people: { email: string; subscribed: boolean; data: Record<string, unknown> }[] = [
      { email: 'ada@example.com', subscribed: true, data: { plan: 'Pro', age: 36, vip: true, since: '2024-01-15', profile: { tier: 'gold' }, 'first name': 'Ada', seen: new Date(Date.now() - 2 * 86_400_000).toISOString() } },
      { email: 'bob@sample.org', subscribed: false, data: { plan: 'free', age: 17, vip: false, since: '2025-06-01', profile: { tier: 'silver' }, seen: new Date(Date.now() - 40 * 86_400_000).toISOString() } },
      { email: 'cy@example.com', subscribed: true, data: { plan: 'team', age: 52 } },
      { email: 'dee@other.net', subscribed: true, data: {} },
    ];
    await contacts.transaction((tx) =>
      contacts.upsertMany(tx, projectId, people.map((p) => ({ email: p.email, patch: parseDataPatch(p.data), subscribed: p.subscribed })), true),
    );
    for (const row of await dataSource.query('SELECT id, email FROM contacts WHERE project_id = $1', [projectId])) ids[row.email.split('@')[0]] = row.id;
    const event = (who: string, name: string, daysAgo: number) =>
      dataSource.query(`INSERT INTO events (project_id, contact_id, name, source, created_at) VALUES ($1, $2, $3, 'API', now() - make_interval(days => $4))`, [projectId, ids[who], name, daysAgo]);
    await event('ada', 'purchase', 1);
    await event('ada', 'purchase', 3);
    await event('ada', 'purchase', 10);
    await event('bob', 'purchase', 60);
    await event('cy', 'login', 0);
  });

  afterAll(async () => {
    await dataSource.query('DELETE FROM projects WHERE id = $1', [projectId]);
    await dataSource.destroy();
  });

  async function matching(condition: unknown): Promise<string[]> {
    const { where, params } = await audienceWhere(dataSource.manager, projectId, parseCondition(condition));
    const rows: { email: string }[] = await dataSource.query(`SELECT c.email FROM contacts c WHERE ${where} ORDER BY c.email`, params);
    return rows.map((row) => row.email.split('@')[0]);
  }
  const one = (filter: Filter) => matching({ logic: 'AND', groups: [{ filters: [filter] }] });

  it.each<[Filter, string[]]>([
    [{ field: 'data.plan', operator: 'equals', value: 'pro' }, ['ada']],
    [{ field: 'data.plan', operator: 'notEquals', value: 'PRO' }, ['bob', 'cy']],
    [{ field: 'data.plan', operator: 'contains', value: 'E' }, ['bob', 'cy']],
    [{ field: 'data.plan', operator: 'notContains', value: 'e' }, ['ada']],
    [{ field: 'data.plan', operator: 'startsWith', value: 'f' }, ['bob']],
    [{ field: 'data.plan', operator: 'endsWith', value: 'am' }, ['cy']],
    [{ field: 'data.age', operator: 'greaterThan', value: 36 }, ['cy']],
    [{ field: 'data.age', operator: 'greaterThanOrEqual', value: 36 }, ['ada', 'cy']],
    [{ field: 'data.age', operator: 'lessThan', value: 36 }, ['bob']],
    [{ field: 'data.age', operator: 'lessThanOrEqual', value: 36 }, ['ada', 'bob']],
    [{ field: 'data.age', operator: 'equals', value: 52 }, ['cy']],
    [{ field: 'data.plan', operator: 'in', value: ['FREE', 'team'] }, ['bob', 'cy']],
    [{ field: 'data.plan', operator: 'notIn', value: ['free', 'team'] }, ['ada']],
    [{ field: 'data.age', operator: 'in', value: [17, 52] }, ['bob', 'cy']],
    [{ field: 'data.vip', operator: 'equals', value: true }, ['ada']],
    [{ field: 'data.vip', operator: 'exists' }, ['ada', 'bob']],
    [{ field: 'data.vip', operator: 'notExists' }, ['cy', 'dee']],
    [{ field: 'data.nobody', operator: 'equals', value: 'x' }, []],
    [{ field: 'data.nobody', operator: 'notEquals', value: 'x' }, []],
    [{ field: 'data.nobody', operator: 'notExists' }, ['ada', 'bob', 'cy', 'dee']],
    [{ field: 'data.since', operator: 'before', value: '2025-01-01T00:00:00Z' }, ['ada']],
    [{ field: 'data.since', operator: 'after', value: '2025-01-01T00:00:00Z' }, ['bob']],
    [{ field: 'data.seen', operator: 'within', value: 7, unit: 'days' }, ['ada']],
    [{ field: 'data.seen', operator: 'within', value: 2, unit: 'months' }, ['ada', 'bob']],
    [{ field: 'data.seen', operator: 'olderThan', value: 30 }, ['bob']],
    [{ field: 'data.profile.tier', operator: 'equals', value: 'gold' }, ['ada']],
    [{ field: 'data.first name', operator: 'equals', value: 'ada' }, ['ada']],
    [{ field: 'email', operator: 'endsWith', value: '@example.com' }, ['ada', 'cy']],
    [{ field: 'email', operator: 'equals', value: 'BOB@sample.org' }, ['bob']],
    [{ field: 'subscribed', operator: 'equals', value: false }, ['bob']],
    [{ field: 'createdAt', operator: 'within', value: 1, unit: 'hours' }, ['ada', 'bob', 'cy', 'dee']],
    [{ field: 'createdAt', operator: 'olderThan', value: 1, unit: 'days' }, []],
    [{ field: 'event.purchase', operator: 'exists' }, ['ada', 'bob']],
    [{ field: 'event.purchase', operator: 'notExists' }, ['cy', 'dee']],
    [{ field: 'event.purchase', operator: 'within', value: 7 }, ['ada']],
    [{ field: 'event.purchase', operator: 'olderThan', value: 30 }, ['bob']],
    [{ field: 'event.purchase', operator: 'greaterThan', value: 1 }, ['ada']],
    [{ field: 'event.purchase', operator: 'equals', value: 1 }, ['bob']],
    [{ field: 'event.purchase', operator: 'lessThan', value: 1 }, ['cy', 'dee']],
  ])('%j matches %j', async (filter, expected) => {
    expect(await one(filter)).toEqual(expected);
  });

  it('joins the filters of a group with AND and groups with the logic of their level', async () => {
    const subscribedPro = { filters: [{ field: 'subscribed', operator: 'equals', value: true }, { field: 'data.age', operator: 'greaterThan', value: 30 }] };
    const free = { filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] };
    expect(await matching({ logic: 'AND', groups: [subscribedPro] })).toEqual(['ada', 'cy']);
    expect(await matching({ logic: 'OR', groups: [subscribedPro, free] })).toEqual(['ada', 'bob', 'cy']);
    expect(await matching({ logic: 'AND', groups: [subscribedPro, free] })).toEqual([]);
  });

  it('requires a group\'s nested conditions as well as its filters', async () => {
    const condition = {
      logic: 'AND',
      groups: [
        {
          filters: [{ field: 'email', operator: 'endsWith', value: 'example.com' }],
          conditions: {
            logic: 'OR',
            groups: [
              { filters: [{ field: 'event.login', operator: 'exists' }] },
              { filters: [{ field: 'data.vip', operator: 'equals', value: true }] },
            ],
          },
        },
      ],
    };
    expect(await matching(condition)).toEqual(['ada', 'cy']);
    const onlyNested = { logic: 'AND', groups: [{ filters: [], conditions: { logic: 'AND', groups: [{ filters: [{ field: 'event.login', operator: 'exists' }] }] } }] };
    expect(await matching(onlyNested)).toEqual(['cy']);
  });

  it('matches every contact with no groups, and evaluates one contact', async () => {
    expect(await matching({ logic: 'AND', groups: [] })).toEqual(['ada', 'bob', 'cy', 'dee']);
    const vip = parseCondition({ logic: 'AND', groups: [{ filters: [{ field: 'data.vip', operator: 'equals', value: true }] }] });
    expect(await contactMatches(dataSource.manager, projectId, ids.ada, vip)).toBe(true);
    expect(await contactMatches(dataSource.manager, projectId, ids.bob, vip)).toBe(false);
  });

  it('reads the triggering event with event.data.<key>', async () => {
    const big = parseCondition({ logic: 'AND', groups: [{ filters: [{ field: 'event.data.amount', operator: 'greaterThan', value: 100 }] }] });
    expect(await contactMatches(dataSource.manager, projectId, ids.ada, big, { amount: 250 })).toBe(true);
    expect(await contactMatches(dataSource.manager, projectId, ids.ada, big, { amount: 20 })).toBe(false);
  });

  it('treats hostile keys and values as data, never as SQL', async () => {
    expect(await one({ field: "data.plan'); DROP TABLE contacts; --", operator: 'equals', value: "x' OR '1'='1" })).toEqual([]);
    expect(await one({ field: 'data.plan', operator: 'contains', value: '%' })).toEqual([]);
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM contacts WHERE project_id = $1', [projectId]);
    expect(n).toBe(4);
  });

  it('runs comparisons whose value or field does not fit the type, matching nobody instead of failing', async () => {
    // Each of these made Postgres refuse the query (a cast or a timestamp out of range): a 500 on main.
    const misfits: Filter[] = [
      { field: 'subscribed', operator: 'within', value: 3 },
      { field: 'subscribed', operator: 'before', value: '2020-01-01' },
      { field: 'email', operator: 'olderThan', value: 1 },
      { field: 'subscribed', operator: 'greaterThan', value: 5 },
      { field: 'createdAt', operator: 'equals', value: 'yesterday' },
      { field: 'createdAt', operator: 'in', value: ['soon', 'later'] },
      { field: 'data.age', operator: 'greaterThan', value: 'old' },
      { field: 'data.vip', operator: 'equals', value: 'maybe' },
    ];
    for (const filter of misfits) expect([filter, await one(filter)]).toEqual([filter, []]);
    expect(await one({ field: 'subscribed', operator: 'equals', value: 'TRUE' })).toEqual(['ada', 'cy', 'dee']);
    // A condition saved before amounts were bounded still runs: the amount is held at 200 years.
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM contacts WHERE project_id = $1', [projectId]);
    const { where, params } = await audienceWhere(dataSource.manager, projectId, {
      logic: 'AND',
      groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 1e300, unit: 'months' }, { field: 'event.purchase', operator: 'lessThan', value: 1e300 }] }],
    });
    const rows = await dataSource.query(`SELECT c.email FROM contacts c WHERE ${where}`, params);
    expect(rows.length).toBeLessThanOrEqual(n);
  });

  it('refuses invalid trees with 422 naming the path', () => {
    const invalid: unknown[] = [
      'nope',
      { logic: 'XOR', groups: [] },
      { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'resembles', value: 'x' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'phone', operator: 'equals', value: 'x' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'data.seen', operator: 'within', value: 'soon' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'data.seen', operator: 'within', value: 3, unit: 'years' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'event.x', operator: 'contains', value: 'a' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'in', value: [] }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'createdAt', operator: 'olderThan', value: 1e300, unit: 'months' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'data.seen', operator: 'within', value: 2_401, unit: 'months' }] }] },
      { logic: 'AND', groups: [{ filters: [{ field: 'event.purchase', operator: 'greaterThan', value: 1e300 }] }] },
    ];
    for (const tree of invalid) {
      let error: any;
      try {
        parseCondition(tree);
      } catch (err) {
        error = err;
      }
      expect(error?.statusCode).toBe(422);
      expect(error.options.errors[0].field).toMatch(/^condition/);
    }
  });
});
