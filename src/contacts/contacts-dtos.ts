import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { CursorPageQuery } from '../http/page-query';
import { IsDateTime, Nullable, NullableDateTime, Optional } from '../http/validate';
import type { FieldType } from './data-rules';

const FIELD_TYPES: FieldType[] = ['string', 'number', 'boolean', 'date', 'object'];

/** `data` in a request body: the hand-written `ContactDataPatch` schema, whose prose states the data rules. */
const DataPatch = () => JSONSchema((() => ({ $ref: '#/components/schemas/ContactDataPatch' })) as never);

/**
 * `POST /contacts`: the precheck answers every failure with the bare `{ error }`, so these
 * decorators only document the shape (they take whatever the precheck lets through).
 */
export class UpsertContactBody {
  @IsString() @MaxLength(320) @JSONSchema({ format: 'email', description: 'Matched case-insensitively; stored lower-case.' })
  email!: string;

  @Optional() @IsBoolean() @JSONSchema({ description: 'Defaults to `true` for a new contact.' })
  subscribed?: boolean;

  @IsOptional() @IsObject() @DataPatch()
  data?: Record<string, unknown> | null;
}

/** `PATCH /contacts/{id}`: any subset of the contact's fields. */
export class UpdateContactBody {
  @Optional() @IsEmail({}, { message: 'email must be a valid email address' })
  @JSONSchema({ description: 'The new address; must not belong to another contact of the project.' })
  email?: string;

  @Optional() @IsBoolean() subscribed?: boolean;

  @IsOptional() @IsObject() @DataPatch()
  data?: Record<string, unknown>;
}

/** `POST /contacts/lookup`: 1 to 500 emails. */
export class LookupContactsBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(500) @IsString({ each: true })
  emails!: string[];
}

/** `GET /contacts`: unrecognised `subscribed`, `sort` or `dir` values fall back to the defaults. */
export class ContactListQuery extends CursorPageQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Only contacts whose email contains this text (case-insensitive).' })
  search?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Only subscribed (`true`) or unsubscribed (`false`) contacts; omit for both.', type: 'boolean' })
  subscribed?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Sort key; an unrecognised value falls back to `createdAt`.', enum: ['createdAt', 'email'], default: 'createdAt' })
  sort?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Sort direction; an unrecognised value falls back to `desc`.', enum: ['desc', 'asc'], default: 'desc' })
  dir?: string;
}

/** `GET /contacts/fields/{field}/values`: how many distinct values to answer. */
export class ContactFieldValuesQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: 'How many distinct values to return (at most 500).', type: 'integer', minimum: 1, maximum: 500, default: 50 })
  limit?: string;
}

/** A contact, as every contact endpoint answers it. */
export class Contact {
  @IsUUID() id!: string;
  @IsEmail() @JSONSchema({ description: 'Unique within the project; stored lower-case.' }) email!: string;
  @IsBoolean() @JSONSchema({ description: 'Whether the contact receives marketing email.' }) subscribed!: boolean;
  @NullableDateTime() snoozedUntil!: Date | null;
  @IsObject() @JSONSchema({ additionalProperties: true, description: 'Custom fields.' }) data!: Record<string, unknown>;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

class ContactUpsertMeta {
  @IsBoolean() @JSONSchema({ description: 'True when the contact was created (status 201).' }) isNew!: boolean;
  @IsBoolean() @JSONSchema({ description: 'True when an existing contact was updated (status 200).' }) isUpdate!: boolean;
}

/** `POST /contacts`: the contact and whether it was created or updated. */
export class ContactUpsertResult extends Contact {
  @ValidateNested() @Type(() => ContactUpsertMeta) _meta!: ContactUpsertMeta;
}

class ContactLookupEntry {
  @IsString() email!: string;
  @IsBoolean() exists!: boolean;
  @Nullable('Null when no contact has the email.') @IsUUID() contactId!: string | null;
}

/** `POST /contacts/lookup`: one entry per email sent, in request order. */
export class ContactLookup {
  @ValidateNested({ each: true }) @Type(() => ContactLookupEntry) data!: ContactLookupEntry[];
}

/** A standard or custom contact field with its type and coverage. */
export class ContactField {
  @IsString() @JSONSchema({ description: '`email`, `subscribed`, `createdAt`, `updatedAt`, or `data.<key>` for a custom field.' })
  field!: string;

  @IsIn(FIELD_TYPES) @JSONSchema({ description: 'For custom fields, the type inferred from the first value seen (sticky).' })
  type!: FieldType;

  @IsBoolean() @JSONSchema({ description: 'False for the standard fields.' }) isCustom!: boolean;

  @IsNumber() @Min(0) @Max(1) @JSONSchema({ description: 'Share of contacts that have the field set.' }) coverage!: number;
}

/** `GET /contacts/fields`. */
export class ContactFieldList {
  @ValidateNested({ each: true }) @Type(() => ContactField) fields!: ContactField[];
}

class ContactFieldValue {
  @IsDefined() @JSONSchema({ description: 'A stored value, as stored.' }) value!: unknown;
  @IsInt() @Min(1) @JSONSchema({ description: 'Contacts having this value.' }) count!: number;
}

/** `GET /contacts/fields/{field}/values`: the distinct values, most frequent first. */
export class ContactFieldValues {
  @IsString() field!: string;
  @ValidateNested({ each: true }) @Type(() => ContactFieldValue) values!: ContactFieldValue[];
}

/** A resource that references a field: its id and name. */
class ContactFieldReference {
  @IsUUID() id!: string;
  @IsString() name!: string;
}

/** `GET /contacts/fields/{field}/usage`: the resources referencing a field. */
export class ContactFieldUsage {
  @IsString() field!: string;
  @ValidateNested({ each: true }) @Type(() => ContactFieldReference) segments!: ContactFieldReference[];
  @ValidateNested({ each: true }) @Type(() => ContactFieldReference) campaigns!: ContactFieldReference[];
  @ValidateNested({ each: true }) @Type(() => ContactFieldReference) workflows!: ContactFieldReference[];
}

/** `DELETE /contacts/fields/{field}`: the field removed and how many contacts had it. */
export class DeletedContactField {
  @IsString() field!: string;
  @IsInt() @Min(0) @JSONSchema({ description: 'How many contacts had the field.' }) contactsUpdated!: number;
}
