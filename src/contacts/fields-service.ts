import type { DataSource } from 'typeorm';
import { notFound } from '../http/errors';
import { segmentsReferencing } from '../segments/segments-queries';
import { workflowsReferencingField } from '../automations/workflows-queries';
import * as queries from './fields-queries';

/** The built-in contact fields, listed beside the custom `data.<key>` ones. */
const STANDARD_FIELDS = [
  { field: 'email', type: 'string', column: 'email' },
  { field: 'subscribed', type: 'boolean', column: 'subscribed' },
  { field: 'createdAt', type: 'date', column: 'created_at' },
  { field: 'updatedAt', type: 'date', column: 'updated_at' },
] as const;

/** A field name as the API takes it: `data.plan` or `plan` for a custom key, or a standard field. */
function customKey(field: string): string {
  return field.startsWith('data.') ? field.slice('data.'.length) : field;
}

/** Contact fields: their types and coverage, the values seen, and removal. */
export class FieldsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Every field with its type and the share of contacts that have it set, counted in one pass over the project's contacts. */
  async list(projectId: string) {
    const { manager } = this.dataSource;
    const custom = await queries.listFieldTypes(manager, projectId);
    const { total, counts } = await queries.countFieldCoverage(manager, projectId, custom.map((field) => field.key));
    const share = (count: number) => (total === 0 ? 0 : Math.round((count / total) * 10_000) / 10_000);
    return {
      fields: [
        ...STANDARD_FIELDS.map((standard) => ({ field: standard.field, type: standard.type, isCustom: false, coverage: share(total) })),
        ...custom.map((row, i) => ({ field: `data.${row.key}`, type: row.type, isCustom: true, coverage: share(counts[i]) })),
      ],
    };
  }

  /** The distinct values of a field with how many contacts hold each, most frequent first. */
  async values(projectId: string, field: string, limit: number) {
    const standard = STANDARD_FIELDS.find((candidate) => candidate.field === field);
    const path = standard ? [] : await this.path(projectId, customKey(field));
    const rows = standard
      ? await queries.countColumnValues(this.dataSource.manager, projectId, standard.column, limit)
      : await queries.countDataValues(this.dataSource.manager, projectId, path, limit);
    return { field, values: rows.map((row) => ({ value: row.value, count: row.count })) };
  }

  /** Where a field is referenced; segments, campaigns and workflows report here as they reference fields. */
  async usage(projectId: string, field: string) {
    const name = STANDARD_FIELDS.some((standard) => standard.field === field) ? field : `data.${customKey(field)}`;
    const matches = (used: string) => used === name || used.startsWith(`${name}.`);
    const [segments, workflows] = await Promise.all([
      segmentsReferencing(this.dataSource.manager, projectId, matches),
      workflowsReferencingField(this.dataSource.manager, projectId, matches),
    ]);
    return { field, segments, campaigns: [], workflows };
  }

  /** Removes a custom key from every contact of the project and forgets its type. */
  async delete(projectId: string, field: string) {
    const key = customKey(field);
    if (STANDARD_FIELDS.some((standard) => standard.field === field)) throw notFound(`Custom field ${field}`);
    const contactsUpdated = await queries.deleteField(this.dataSource.manager, projectId, key);
    return { field: `data.${key}`, contactsUpdated };
  }

  /** The JSON path of a custom key: the key itself when known, else its dot-separated parts. */
  private async path(projectId: string, key: string): Promise<string[]> {
    return (await queries.isKnownField(this.dataSource.manager, projectId, key)) ? [key] : key.split('.');
  }
}
