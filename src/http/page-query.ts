import { IsOptional, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from './pagination';

/** `page` and `pageSize` of an offset-paginated list (SPEC conventions, item 4); read by `offsetParams`. */
export class OffsetPageQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: 'Page number, from 1.', type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  page?: string;

  @IsOptional() @IsString()
  @JSONSchema({
    description: `Items per page; larger values are clamped to ${MAX_PAGE_SIZE}.`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
  })
  pageSize?: string;
}

/** An offset-paginated list with a sort direction. */
export class SortedPageQuery extends OffsetPageQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: 'Sort direction; an unrecognised value falls back to `desc`.', enum: ['desc', 'asc'], default: 'desc' })
  dir?: string;
}

/** `limit` and `cursor` of a cursor-paginated list (SPEC conventions, item 3); read by `cursorParams`. */
export class CursorPageQuery {
  @IsOptional() @IsString()
  @JSONSchema({
    description: `Items per page; values outside 1..${MAX_PAGE_SIZE} are clamped.`,
    type: 'integer',
    default: DEFAULT_PAGE_SIZE,
  })
  limit?: string;

  @IsOptional() @IsString() @JSONSchema({ description: 'The `cursor` of the previous page; only cursors this list issued are taken.' })
  cursor?: string;
}
