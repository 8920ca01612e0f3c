import { IsEmail, IsIn, IsString, IsUUID } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsDateTime, Nullable, NullableDateTime } from '../http/validate';
import { PUBLIC_EMAIL_STATUSES } from './emails-service';

/** One email record: `GET /emails/{id}` and `POST /emails/{id}/cancel`. */
export class EmailRecord {
  @IsUUID() id!: string;
  @IsEmail() @JSONSchema({ description: 'The recipient.' }) to!: string;
  @IsString() @JSONSchema({ description: 'The subject as written (Liquid placeholders not rendered).' }) subject!: string;

  @IsIn(PUBLIC_EMAIL_STATUSES)
  @JSONSchema({
    description:
      '`OPENED` and `CLICKED` emails answer `DELIVERED`; a campaign email skipped because its campaign was cancelled answers `CANCELLED`.',
  })
  status!: string;

  @NullableDateTime('When a scheduled email is (or was) due; null unless it was sent with `scheduledAt`.') scheduledAt!: Date | null;
  @NullableDateTime('When the transport accepted it.') sentAt!: Date | null;
  @Nullable('The recipient contact; null for a campaign test send.') @IsUUID() contactId!: string | null;
  @IsDateTime() createdAt!: Date;
}
