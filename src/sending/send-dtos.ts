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

  @IsUUID() @JSONSchema({ description: 'The email record; follow it in the activity feed.' })
  email!: string;

  @IsIn(['QUEUED', 'SUPPRESSED']) @JSONSchema({ description: '`SUPPRESSED`: on the suppression list, nothing sent.' })
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
