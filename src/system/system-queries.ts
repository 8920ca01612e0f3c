import type { DataSource } from 'typeorm';

/** Whether the database answers a trivial query. */
export async function databaseAnswers(dataSource: DataSource): Promise<boolean> {
  return dataSource.query('SELECT 1').then(
    () => true,
    () => false,
  );
}
