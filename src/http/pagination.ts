import { badRequest } from './errors';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

type Query = Record<string, unknown>;

function positiveInt(value: unknown, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed >= 1 ? parsed : fallback;
}

/** A cursor page request: `limit` (default 20, clamped to 100) and the decoded `cursor`. */
export interface CursorParams<C> {
  limit: number;
  cursor: C | undefined;
}

/** A cursor page response in the SPEC's shape. */
export interface CursorPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

/** Encodes a position (for example `{ createdAt, id }`) as an opaque cursor string. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** Reads `limit` and `cursor` from a query; a cursor that does not decode is a 400. */
export function cursorParams<C>(query: Query): CursorParams<C> {
  const limit = Math.min(positiveInt(query.limit, DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  const raw = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : undefined;
  if (raw === undefined) return { limit, cursor: undefined };
  try {
    return { limit, cursor: JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as C };
  } catch {
    throw badRequest('The cursor is not valid; pass the cursor from the previous response unchanged');
  }
}

/**
 * Builds a cursor page from `limit + 1` fetched rows; `total` is only computed
 * for the first page (no cursor), as the SPEC says.
 */
export async function cursorPage<T, C>(
  rows: T[],
  params: CursorParams<C>,
  positionOf: (row: T) => unknown,
  countTotal: () => Promise<number>,
): Promise<CursorPage<T>> {
  const hasMore = rows.length > params.limit;
  const data = hasMore ? rows.slice(0, params.limit) : rows;
  return {
    data,
    cursor: hasMore ? encodeCursor(positionOf(data[data.length - 1])) : null,
    hasMore,
    total: params.cursor === undefined ? await countTotal() : 0,
  };
}

/** An offset page request: `page` >= 1 and `pageSize` (default 20, at most `max`). */
export interface OffsetParams {
  page: number;
  pageSize: number;
  offset: number;
}

/** Reads `page` and `pageSize` from a query. */
export function offsetParams(query: Query, max = MAX_PAGE_SIZE): OffsetParams {
  const page = positiveInt(query.page, 1);
  const pageSize = Math.min(positiveInt(query.pageSize, DEFAULT_PAGE_SIZE), max);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** An offset page response in the SPEC's shape. */
export function offsetPage<T>(data: T[], total: number, params: OffsetParams) {
  return {
    data,
    page: params.page,
    pageSize: params.pageSize,
    total,
    totalPages: Math.ceil(total / params.pageSize),
  };
}
