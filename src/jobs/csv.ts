import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { csvCellValue, parseDataPatch, type DataPatch } from '../contacts/data-rules';

/** The CSV columns Herald recognises; every other column becomes a `data` key. */
interface Columns {
  headers: string[];
  email: number;
  subscribed: number;
}

/** A CSV file that cannot be imported, with the reason. */
export class CsvError extends Error {}

const SUBSCRIBED: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parser(content: Buffer, fromLine = 1) {
  return Readable.from([content]).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: false, from_line: fromLine }),
  );
}

/** Reads the header row and finds the `email` and `subscribed` columns (case-insensitive, trimmed). */
export async function readColumns(content: Buffer): Promise<Columns> {
  if (content.includes(0)) throw new CsvError('The file is not a CSV text file');
  let headers: string[] | undefined;
  try {
    for await (const record of parser(content)) {
      headers = (record as string[]).map((header) => header.trim());
      break;
    }
  } catch (err) {
    throw new CsvError(`The file is not valid CSV: ${(err as Error).message}`);
  }
  if (!headers) throw new CsvError('The file is empty');
  const find = (name: string) => headers!.findIndex((header) => header.toLowerCase() === name);
  const email = find('email');
  if (email < 0) throw new CsvError('The CSV has no "email" column');
  return { headers, email, subscribed: find('subscribed') };
}

/** One data row of an import: its 1-based line number among data rows and its cells. */
export interface CsvRow {
  row: number;
  cells: string[];
}

/** Streams the data rows after the header, skipping the first `skip` of them. */
export async function* readRows(content: Buffer, skip: number): AsyncGenerator<CsvRow> {
  let row = 0;
  for await (const record of parser(content, 2)) {
    row += 1;
    if (row > skip) yield { row, cells: record as string[] };
  }
}

/** Counts the data rows of a file. */
export async function countRows(content: Buffer): Promise<number> {
  let count = 0;
  for await (const _row of readRows(content, 0)) count += 1;
  return count;
}

/** A row turned into a contact input, or the reason it cannot be. */
export type RowInput = { email: string; subscribed?: boolean; patch: DataPatch } | { error: string };

/** Applies the import rules to one row: email required, `subscribed` optional, every other non-empty cell a data key. */
export function rowToInput(columns: Columns, cells: string[]): RowInput {
  const email = (cells[columns.email] ?? '').trim();
  if (!EMAIL.test(email)) return { error: email ? `Invalid email "${email}"` : 'Missing email' };
  let subscribed: boolean | undefined;
  if (columns.subscribed >= 0) {
    const raw = (cells[columns.subscribed] ?? '').trim().toLowerCase();
    if (raw !== '') {
      if (!(raw in SUBSCRIBED)) return { error: `Invalid subscribed value "${raw}"` };
      subscribed = SUBSCRIBED[raw];
    }
  }
  const data: Record<string, unknown> = {};
  columns.headers.forEach((header, i) => {
    const cell = cells[i];
    if (i === columns.email || i === columns.subscribed || cell === undefined || cell.trim() === '') return;
    data[header] = csvCellValue(cell);
  });
  return { email, subscribed, patch: parseDataPatch(data) };
}
