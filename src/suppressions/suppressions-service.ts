import type { DataSource } from 'typeorm';
import type { SuppressionType } from '../entities/suppression';
import { notFound } from '../http/errors';
import type { CursorParams } from '../http/pagination';
import * as queries from './suppressions-queries';

/** An entry as the API shows it. */
export function suppressionView({ type, value, reason, createdAt }: queries.SuppressionRow) {
  return { type, value, reason, createdAt };
}

/**
 * The project's suppression list: addresses and whole domains it never sends to. Bounces
 * and complaints add entries on their own (src/mail-events); here they are listed, added
 * by hand (reason `MANUAL`) and removed. Values arrive lower-case from the route.
 */
export class SuppressionsService {
  constructor(private readonly dataSource: DataSource) {}

  /** A cursor page of entries, newest first, with the total of the first page computed on demand. */
  async list(projectId: string, filter: queries.SuppressionFilter, page: CursorParams<queries.SuppressionCursor>) {
    const { manager } = this.dataSource;
    const rows = await queries.listSuppressions(manager, projectId, filter, page.limit + 1, page.cursor);
    return { rows, countTotal: () => queries.countSuppressions(manager, projectId, filter) };
  }

  /** Adds an address or domain by hand; an entry already listed (for any reason) is answered as it is. */
  async add(projectId: string, type: SuppressionType, value: string): Promise<{ entry: queries.SuppressionRow; created: boolean }> {
    const { manager } = this.dataSource;
    const inserted = await queries.insertSuppression(manager, projectId, { type, value, reason: 'MANUAL' });
    if (inserted) return { entry: inserted, created: true };
    const existing = await queries.findSuppression(manager, projectId, value);
    // Removed again between the insert and the read: add it once more.
    return existing ? { entry: existing, created: false } : this.add(projectId, type, value);
  }

  /** One entry; 404 when the value is not listed. */
  async get(projectId: string, value: string): Promise<queries.SuppressionRow> {
    const entry = await queries.findSuppression(this.dataSource.manager, projectId, value);
    if (!entry) throw notFound('Suppression');
    return entry;
  }

  /** Removes an entry, so sending to it resumes; the contact's subscription is left as it is. 404 when not listed. */
  async remove(projectId: string, value: string): Promise<void> {
    if (!(await queries.deleteSuppression(this.dataSource.manager, projectId, value))) throw notFound('Suppression');
  }
}
