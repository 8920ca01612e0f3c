import type { ListCursors } from './cursors';
import { intParam, type Query } from './query';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** The last page an offset list serves: 100 million rows at the largest page size, past any real list. */
export const MAX_PAGE = 1_000_000;

/** A cursor page request: `limit` (default 20, clamped to 1..100) and the decoded `cursor`. */
export interface CursorParams<C> {
  limit: number;
  cursor: C | undefined;
}

/** A cursor page request read from a query, with the list's cursors to name the next page. */
export interface CursorRequest<C> extends CursorParams<C> {
  cursors: ListCursors<C>;
}

/** A cursor page response in the SPEC's shape. */
export interface CursorPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

/** Reads `limit` and `cursor` from a query; a cursor the list did not issue is a 400. */
export function cursorParams<C>(query: Query, cursors: ListCursors<C>): CursorRequest<C> {
  const limit = intParam(query, 'limit', { fallback: DEFAULT_PAGE_SIZE, min: 1, max: MAX_PAGE_SIZE, clamp: true });
  const cursor = (query as { cursor?: unknown }).cursor;
  const raw = typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
  return { limit, cursor: raw === undefined ? undefined : cursors.decode(raw), cursors };
}

/**
 * Builds a cursor page from `limit + 1` fetched rows; `total` is only computed
 * for the first page (no cursor), as the SPEC says.
 */
export async function cursorPage<T, C>(
  rows: T[],
  params: CursorRequest<C>,
  positionOf: (row: T) => C,
  countTotal: () => Promise<number>,
): Promise<CursorPage<T>> {
  const hasMore = rows.length > params.limit;
  const data = hasMore ? rows.slice(0, params.limit) : rows;
  return {
    data,
    cursor: hasMore ? params.cursors.encode(positionOf(data[data.length - 1])) : null,
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

/** Reads `page` (1..MAX_PAGE, else a 400) and `pageSize` (clamped to 1..`max`) from a query. */
export function offsetParams(query: Query, max = MAX_PAGE_SIZE): OffsetParams {
  const page = intParam(query, 'page', { fallback: 1, min: 1, max: MAX_PAGE });
  const pageSize = intParam(query, 'pageSize', { fallback: DEFAULT_PAGE_SIZE, min: 1, max, clamp: true });
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
