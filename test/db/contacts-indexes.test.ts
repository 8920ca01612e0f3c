import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';

describe('the indexes of contacts', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 1);
  });
  afterAll(() => dataSource?.destroy());

  it('leave data out, so that a tracked change of data can rewrite its contact without touching an index (a heap-only update)', async () => {
    const rows: { indexname: string; indexdef: string }[] = await dataSource.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'contacts'`);
    expect(rows.map((row) => row.indexname)).toContain('contacts_project_email_key');
    expect(rows.filter((row) => /\bdata\b/.test(row.indexdef.replace(/^.*? ON /, '')))).toEqual([]);
  });
});
