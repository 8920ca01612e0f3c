import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsString, IsUUID, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { JOB_TYPES, type JobStatus, type JobType } from '../entities/job';
import { IsDateTime, NullableDateTime, Optional } from '../http/validate';

const JOB_STATUSES: JobStatus[] = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];

/** `POST /contacts/bulk-*`: 1 to 1,000 contact ids. */
export class BulkContactsBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsUUID('all', { each: true })
  contactIds!: string[];
}

/** A queued job: poll it by its id. */
export class JobAccepted {
  @IsUUID() jobId!: string;
}

class JobFailure {
  @Optional() @IsInt() @JSONSchema({ description: 'The CSV row, for an import.' }) row?: number;
  @Optional() @IsUUID() @JSONSchema({ description: 'The contact id, for a bulk operation.' }) contactId?: string;
  @IsString() message!: string;
}

/** A CSV import or bulk operation and its progress. */
export class Job {
  @IsUUID() jobId!: string;
  @IsIn(JOB_TYPES) type!: JobType;
  @IsIn(JOB_STATUSES) @JSONSchema({ description: '`COMPLETED`, `FAILED` and `CANCELLED` are final.' }) status!: JobStatus;
  @IsInt() @Min(0) @JSONSchema({ description: 'Rows (import) or contact ids (bulk) to process.' }) total!: number;
  @IsInt() @Min(0) processed!: number;
  @IsInt() @Min(0) succeeded!: number;
  @IsInt() @Min(0) failed!: number;

  @ValidateNested({ each: true }) @Type(() => JobFailure) @JSONSchema({ description: 'The first 100 failures.', maxItems: 100 })
  errors!: JobFailure[];

  @IsDateTime() createdAt!: Date;
  @NullableDateTime('Null until the job reaches a final status.') completedAt!: Date | null;
}
