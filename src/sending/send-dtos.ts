import { Equals, IsEmail, IsIn, IsUUID, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { IsDateTime } from '../http/validate';

class SentContact {
  @IsUUID() id!: string;
  @IsEmail() email!: string;
}

class SentEmail {
  @ValidateNested() @Type(() => SentContact) contact!: SentContact;

  @IsUUID() @JSONSchema({ description: 'The email record; follow it with `GET /emails/{id}` or in the activity feed.' })
  email!: string;

  @IsIn(['QUEUED', 'SCHEDULED', 'SUPPRESSED'])
  @JSONSchema({ description: '`SCHEDULED`: held until `scheduledAt`; `SUPPRESSED`: on the suppression list, nothing sent.' })
  status!: string;
}

class SentEmails {
  @ValidateNested({ each: true }) @Type(() => SentEmail) emails!: SentEmail[];
  @IsDateTime() timestamp!: Date;
}

/** What `POST /v1/send` answers: one email record per recipient. */
export class SendResult {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => SentEmails) data!: SentEmails;
}

class SentBatchItem {
  @ValidateNested({ each: true }) @Type(() => SentEmail) emails!: SentEmail[];
}

/** What `POST /v1/send/batch` answers: per request, in the order sent, one email record per recipient. */
export class SendBatchResult {
  @Equals(true) success!: true;
  @ValidateNested({ each: true }) @Type(() => SentBatchItem) data!: SentBatchItem[];
  @IsDateTime() timestamp!: Date;
}
