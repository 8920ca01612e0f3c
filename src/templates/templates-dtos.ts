import { IsEmail, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { IsDateTime, NotBlank, Nullable, Optional, SingleLine } from '../http/validate';
import { SortedPageQuery } from '../http/page-query';
import { TEMPLATE_SORTS } from './templates-service';

const typeMessage = { message: `type must be one of ${EMAIL_TYPES.join(', ')}` };

/** The fields every template body may carry besides `name` and `from`. */
class TemplateFields {
  @Nullable() @IsString() @MaxLength(2000) @JSONSchema({ description: 'Internal note, never sent to recipients.' })
  description?: string | null;

  @Optional() @IsString() @MaxLength(998)
  @JSONSchema({ description: 'Liquid template; rendered on one line. Defaults to an empty string.' })
  subject?: string;

  @Optional() @IsString() @JSONSchema({ description: 'HTML with Liquid placeholders. Defaults to an empty string.' })
  body?: string;

  @Nullable() @IsString() @MaxLength(255) @SingleLine('fromName') @JSONSchema({ description: 'Sender display name; no line breaks.' })
  fromName?: string | null;

  @Nullable() @IsEmail({}, { message: 'replyTo must be a valid email address' }) @MaxLength(320) @JSONSchema({ description: 'Reply-to address.' })
  replyTo?: string | null;

  @Optional() @IsIn(EMAIL_TYPES, typeMessage)
  @JSONSchema({
    description:
      '`MARKETING` (default) adds the unsubscribe link and `List-Unsubscribe` headers and skips unsubscribed contacts ' +
      'in campaigns and workflows; `TRANSACTIONAL` and `HEADLESS` do not.',
  })
  type?: EmailType;
}

/** `POST /templates`: `name` and `from` are required (a missing or blank one answers the bare `{ error }`). */
export class CreateTemplateBody extends TemplateFields {
  @IsString() @NotBlank() @MaxLength(255) @JSONSchema({ description: 'Internal name; stored trimmed.' })
  name!: string;

  @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320)
  @JSONSchema({ description: 'Sender address; its domain (or a parent domain) must be verified for the project.' })
  from!: string;
}

/** `PATCH /templates/{id}`: any subset; `name` and `from` may be left out but not emptied. */
export class UpdateTemplateBody extends TemplateFields {
  @Optional() @IsString() @NotBlank() @MaxLength(255) @JSONSchema({ description: 'Internal name; stored trimmed.' })
  name?: string;

  @Optional() @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320)
  @JSONSchema({ description: 'Sender address; its domain (or a parent domain) must be verified for the project.' })
  from?: string;
}

/** `GET /templates`: unrecognised `type`, `sort` or `dir` values fall back to the defaults. */
export class TemplateListQuery extends SortedPageQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: 'Only templates of this type (case-insensitive); an unrecognised value is ignored.', enum: [...EMAIL_TYPES] })
  type?: string;

  @IsOptional() @IsString() @JSONSchema({ description: 'Case-insensitive substring of the name, description or subject.' })
  search?: string;

  @IsOptional() @IsString()
  @JSONSchema({
    description: 'Sort key; an unrecognised value falls back to `createdAt`. `name` sorts case-insensitively.',
    enum: [...TEMPLATE_SORTS],
    default: 'createdAt',
  })
  sort?: string;

}

/** A stored template, as every template endpoint answers it. */
export class Template {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @Nullable() @IsString() description!: string | null;
  @IsString() subject!: string;
  @IsString() body!: string;
  @IsEmail() from!: string;
  @Nullable() @IsString() fromName!: string | null;
  @Nullable() @IsEmail() replyTo!: string | null;
  @IsIn(EMAIL_TYPES) type!: EmailType;
  @IsUUID() projectId!: string;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

class TemplateUsageCampaign {
  @IsUUID() id!: string;
  @IsString() name!: string;
}

class TemplateUsageStep {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @IsUUID() stepId!: string;
}

/** The campaigns and workflow steps that reference a template. */
export class TemplateUsage {
  @ValidateNested({ each: true }) @Type(() => TemplateUsageCampaign) campaigns!: TemplateUsageCampaign[];
  @ValidateNested({ each: true }) @Type(() => TemplateUsageStep) workflows!: TemplateUsageStep[];
}

