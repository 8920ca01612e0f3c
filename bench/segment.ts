/**
 * `npm run bench:segment`: 1,000,000 contacts with mixed `data` in one project (plus other
 * tenants), then a DYNAMIC segment of three filters with a nested group, created through
 * the API. Prints how long `memberCount` takes (segment creation and `POST .../refresh`)
 * and the first page of `GET /segments/{id}/contacts`. Aim: under 1 s each.
 *
 * BENCH_CONTACTS (1000000) sets the size.
 */
import { composeCore } from '../src/composition';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { logger } from '../src/logger';
import { listen } from '../src/runtime/http-server';
import { Client, signupWithProject } from '../test/support/api';
import { runBench, withScratch } from './support';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const AIM_MS = 1000;

/** Contacts with a plan on most, an age on all, a country on some, and a nested profile; 90 % subscribed. */
const GENERATE = `
  INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
  SELECT $1, 'user' || g || '@example' || (g % 97) || '.com', g % 10 <> 0,
         jsonb_build_object('age', 18 + g % 60, 'profile', jsonb_build_object('tier', (ARRAY['bronze', 'silver', 'gold'])[g % 3 + 1]))
           || CASE WHEN g % 4 <> 0 THEN jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[g % 3 + 1]) ELSE '{}'::jsonb END
           || CASE WHEN g % 5 = 0 THEN jsonb_build_object('country', (ARRAY['DE', 'FR', 'US', 'JP'])[g % 4 + 1]) ELSE '{}'::jsonb END,
         now() - make_interval(secs => g), now()
    FROM generate_series(1, $2::int) AS g`;

/** Pro or team customers over 30 who are either gold or in Germany. */
const CONDITION = {
  logic: 'AND',
  groups: [
    {
      filters: [
        { field: 'data.plan', operator: 'in', value: ['pro', 'team'] },
        { field: 'data.age', operator: 'greaterThan', value: 30 },
        { field: 'subscribed', operator: 'equals', value: true },
      ],
      conditions: {
        logic: 'OR',
        groups: [
          { filters: [{ field: 'data.profile.tier', operator: 'equals', value: 'gold' }] },
          { filters: [{ field: 'data.country', operator: 'equals', value: 'DE' }] },
        ],
      },
    },
  ],
};

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function main(): Promise<boolean> {
  return withScratch('segment', async (scratch) => {
    const config = loadConfig({ ...process.env, DATABASE_URL: scratch.databaseUrl, DATA_DIR: path.join(scratch.root, 'data'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
    logger.level = config.logLevel;
    const dataSource = await openDatabase(scratch.databaseUrl);
    scratch.onCleanup(() => dataSource.destroy());
    const api = await listen(createApp(composeCore(config, dataSource, undefined)), 0);
    scratch.onCleanup(api.close);
    const url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    const { project } = await signupWithProject({ url }, 'Segment bench');
    const other = await signupWithProject({ url }, 'Other tenant');

    const generation = await timed(async () => {
      await dataSource.query(GENERATE, [project.id, CONTACTS]);
      await dataSource.query(GENERATE, [other.project.id, Math.round(CONTACTS / 5)]);
      await dataSource.query(
        `INSERT INTO contact_fields (project_id, key, type) VALUES ($1, 'age', 'number'), ($1, 'plan', 'string'), ($1, 'country', 'string'), ($1, 'profile', 'object')`,
        [project.id],
      );
      await dataSource.query('VACUUM ANALYZE contacts');
    });
    console.log(`Generated ${CONTACTS.toLocaleString('en')} contacts (+${Math.round(CONTACTS / 5).toLocaleString('en')} in another project) in ${(generation.ms / 1000).toFixed(1)} s`);

    const client = new Client(url);
    const key = project.secretKey;
    const created = await timed(() => client.post('/segments', { name: 'Engaged pro customers', condition: CONDITION }, { key }));
    if (created.value.status !== 201) throw new Error(`POST /segments answered ${created.value.status}: ${JSON.stringify(created.value.body)}`);
    const segmentId = created.value.body.id as string;
    const refresh = await timed(() => client.post(`/segments/${segmentId}/refresh`, undefined, { key }));
    const page = await timed(() => client.get(`/segments/${segmentId}/contacts?page=1&pageSize=20`, { key }));
    const [{ expected }] = await dataSource.query(
      `SELECT count(*)::int AS expected FROM contacts WHERE project_id = $1 AND subscribed AND data->>'plan' IN ('pro', 'team')
          AND (data->>'age')::int > 30 AND (data#>>'{profile,tier}' = 'gold' OR data->>'country' = 'DE')`,
      [project.id],
    );

    const verdict = (ms: number) => (ms < AIM_MS ? 'MET' : 'NOT MET');
    console.log(`memberCount ${created.value.body.memberCount.toLocaleString('en')} (expected ${expected.toLocaleString('en')})`);
    console.log(`POST /segments (creates and counts)     ${created.ms.toFixed(0).padStart(6)} ms  aim < ${AIM_MS} ms -> ${verdict(created.ms)}`);
    console.log(`POST /segments/{id}/refresh (count)      ${refresh.ms.toFixed(0).padStart(6)} ms  aim < ${AIM_MS} ms -> ${verdict(refresh.ms)}`);
    console.log(`GET /segments/{id}/contacts, first page ${page.ms.toFixed(0).padStart(6)} ms  aim < ${AIM_MS} ms -> ${verdict(page.ms)}`);
    return created.value.body.memberCount === expected && refresh.value.body.memberCount === expected && page.value.status === 200 && page.value.body.data.length === 20;
  });
}

runBench(main);
