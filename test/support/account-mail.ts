import type { DataSource } from 'typeorm';

/** The token of the newest account email (outbox transport) to `email` whose link contains `path`. */
export async function tokenFromOutbox(api: { dataSource: DataSource }, email: string, path: string): Promise<string> {
  const rows: { text: string }[] = await api.dataSource.query(
    `SELECT text FROM outbox_messages WHERE $1 = ANY("to") AND text LIKE $2 ORDER BY created_at DESC LIMIT 1`,
    [email, `%${path}%`],
  );
  const match = /token=([A-Za-z0-9_-]+)/.exec(rows[0]?.text ?? '');
  if (!match) throw new Error(`no ${path} email for ${email}`);
  return match[1];
}
