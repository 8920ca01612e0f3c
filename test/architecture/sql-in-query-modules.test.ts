import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Data access: raw SQL, query builders, repositories and entity-manager reads and writes. */
const DATA_ACCESS =
  /\.query\(|createQueryBuilder|getRepository\(|manager\.(find|findOne|findOneBy|findBy|save|insert|update|delete|upsert|count|exists|increment|decrement|query|create|remove)\b|dataSource\.(query|createQueryBuilder)\b/;

/** Where SQL may live: query modules, and the database plumbing itself (data source, embedded Postgres). */
const allowed = (file: string) => file.endsWith('-queries.ts') || file.startsWith('src/db/');

function sources(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder)).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(path.join(ROOT, file)).isDirectory()) return sources(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

describe('data access', () => {
  it('lives only in query modules (`*-queries.ts`): services, routes, runners and activities hold none', () => {
    const files = [...sources('src'), ...sources('activities'), ...sources('workflows')];
    const offending = files
      .filter((file) => !allowed(file))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .map((line, i) => [line, i] as const)
          .filter(([line]) => DATA_ACCESS.test(line))
          .map(([line, i]) => `${file}:${i + 1}: ${line.trim()}`),
      );
    expect(files.filter((file) => file.endsWith('-queries.ts')).length).toBeGreaterThan(20);
    expect(offending).toEqual([]);
  });
});
