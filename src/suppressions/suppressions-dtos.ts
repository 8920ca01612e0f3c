import { IsEmail, IsIn, IsOptional, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { SuppressionReason, SuppressionType } from '../entities/suppression';
import { CursorPageQuery } from '../http/page-query';
import { IsDateTime, Optional } from '../http/validate';

/** The kinds of entry: one address, or every address at a domain. */
export const SUPPRESSION_TYPES: SuppressionType[] = ['EMAIL', 'DOMAIN'];
/** Why an entry is listed: a permanent bounce, a complaint, or added through the API. */
export const SUPPRESSION_REASONS: SuppressionReason[] = ['BOUNCE', 'COMPLAINT', 'MANUAL'];

/** `POST /suppressions`: exactly one of `email` and `domain` (checked after the DTO, 422 `invalid_union`). */
@JSONSchema({ oneOf: [{ required: ['email'] }, { required: ['domain'] }] })
export class AddSuppressionBody {
  @Optional() @IsEmail({}, { message: 'email must be a valid email address' }) @JSONSchema({ description: 'One address.' })
  email?: string;

  @Optional() @IsString() @JSONSchema({ description: 'A hostname such as `example.com`: every address at exactly that domain.' })
  domain?: string;
}

/** `GET /suppressions`: `type` and `reason` are matched case-insensitively; anything else is a 400. */
export class SuppressionListQuery extends CursorPageQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: 'Only addresses (`EMAIL`) or only domains (`DOMAIN`); anything else is a 400.', enum: SUPPRESSION_TYPES })
  type?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Only entries with this reason; anything else is a 400.', enum: SUPPRESSION_REASONS })
  reason?: string;

  @IsOptional() @IsString() @JSONSchema({ description: 'Only entries whose value contains this text (case-insensitive).' })
  search?: string;
}

/** An entry of the suppression list. */
export class Suppression {
  @IsIn(SUPPRESSION_TYPES) @JSONSchema({ description: 'One address, or every address at a domain.' }) type!: SuppressionType;
  @IsString() @JSONSchema({ description: 'The address or the domain, lower-case.' }) value!: string;
  @IsIn(SUPPRESSION_REASONS) @JSONSchema({ description: 'A permanent bounce, a complaint, or added through this API.' }) reason!: SuppressionReason;
  @IsDateTime() createdAt!: Date;
}
