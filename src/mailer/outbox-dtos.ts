import { IsEmail, IsInt, IsObject, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { IsDateTime, Nullable } from '../http/validate';

/** `GET /outbox`: `limit` is read by `intParam` (50 by default, clamped to 1..200), `to` trimmed. */
export class OutboxListQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Only messages addressed to this recipient.', format: 'email' })
  to?: string;

  @IsOptional() @IsString()
  @JSONSchema({
    description: 'How many messages to return; values outside 1..200 are clamped. Anything but a whole number answers 400.',
    type: 'integer',
    minimum: 1,
    maximum: 200,
    default: 50,
  })
  limit?: string;
}

class OutboxAttachment {
  @IsString() filename!: string;
  @IsString() contentType!: string;
  @IsInt() size!: number;
}

/** A message the outbox transport kept instead of delivering it. */
export class OutboxMessage {
  @IsUUID() id!: string;

  @Nullable("The project the message was sent for; null for Herald's own account mail.") @IsUUID()
  projectId!: string | null;

  @IsString() @JSONSchema({ description: 'The `Message-ID` the message would have been sent with.' })
  messageId!: string;

  @IsString() @JSONSchema({ description: 'Sender, possibly with a display name.' })
  from!: string;

  @IsEmail({}, { each: true }) to!: string[];
  @Nullable() @IsString() replyTo!: string | null;
  @IsString() subject!: string;
  @IsString() html!: string;

  @IsString() @JSONSchema({ description: 'The plain-text alternative generated from the HTML.' })
  text!: string;

  @IsObject()
  @JSONSchema({ description: 'Extra headers, e.g. `List-Unsubscribe` on marketing mail.', additionalProperties: { type: 'string' } })
  headers!: Record<string, string>;

  @ValidateNested({ each: true }) @Type(() => OutboxAttachment) attachments!: OutboxAttachment[];
  @IsDateTime() createdAt!: Date;
}

/** What `GET /outbox` answers. */
export class OutboxList {
  @ValidateNested({ each: true }) @Type(() => OutboxMessage) data!: OutboxMessage[];
}
