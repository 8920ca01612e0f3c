import { IsIn, IsInt, IsString, IsUUID, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { trimmedPattern } from '../openapi/builders';
import { IsDateTime, NullableDateTime, Optional } from '../http/validate';

/** A DNS label as `normaliseDomain` (records.ts) takes it, in either letter case (it is lower-cased). */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** The last label holds a letter, which refuses IP addresses. */
const LAST_LABEL_HAS_LETTER = '[A-Za-z][A-Za-z0-9-]*\\.?[^A-Za-z0-9.-]*$';

/**
 * `POST /domains`. Only "a string" is checked here: the service normalises the name and answers
 * its own 422 (`normaliseDomain`); the patterns document what it takes.
 */
export class AddDomainBody {
  @IsString()
  @JSONSchema({
    description:
      'A hostname such as `example.com` or `news.example.com`, at most 253 characters: two labels or more, the last ' +
      'with a letter; white space around it and one trailing dot are dropped, and it is stored lower-case ' +
      '(internationalised names, also accepted, in their `xn--` form). IP addresses and single labels are refused (422).',
    allOf: [{ pattern: trimmedPattern(`(?:${LABEL}\\.)+${LABEL}\\.?`) }, { pattern: LAST_LABEL_HAS_LETTER }],
  })
  domain!: string;
}

/** A DNS record the domain's owner publishes, with whether the last check found it. */
export class DomainRecord {
  @IsIn(['CNAME', 'TXT', 'MX']) type!: 'CNAME' | 'TXT' | 'MX';
  @IsString() @JSONSchema({ description: 'The record name, fully qualified.' }) name!: string;
  @IsString() @JSONSchema({ description: 'The CNAME target, TXT text or MX host.' }) value!: string;
  @Optional() @IsInt() @JSONSchema({ description: 'MX records only.' }) priority?: number;

  @IsIn(['PENDING', 'VERIFIED'])
  @JSONSchema({
    description:
      '`VERIFIED` when the last check found the record (on SES, identity records also when SES reports its ' +
      'DKIM verified). A lookup that got no usable answer (timeout, server failure) keeps the previous status.',
  })
  status!: 'PENDING' | 'VERIFIED';
}

const recordsDescription = [
  'The DNS records to publish, each with whether the last check found it:',
  '',
  '- **Identity** (required). With the `ses` transport: the three DKIM CNAMEs of SES Easy DKIM, ' +
    '`<token>._domainkey.<domain>` -> `<token>.dkim.amazonses.com`. With `smtp` or `outbox` (no provider ' +
    'identity to register, and Herald does not sign mail itself): one TXT `_herald.<domain>` = ' +
    '`herald-verification=<random token>` that proves the domain is yours; DKIM is then up to your SMTP relay.',
  '- **MAIL FROM** (required): MX `mail.<domain>` -> `feedback-smtp.<region>.amazonses.com` (priority 10; ' +
    '`SES_REGION`, `us-east-1` when unset) and SPF TXT `mail.<domain>` = `v=spf1 include:amazonses.com ~all`. ' +
    "On SES, `mail.<domain>` is set as the identity's MAIL FROM domain.",
  '- **DMARC** (recommended, not required): TXT `_dmarc.<domain>` = `v=DMARC1; p=none;`.',
  '',
  'How records match: CNAME and MX by host name (an MX of another priority counts); SPF by any `v=spf1` record ' +
    'at the name that includes `include:amazonses.com`; DMARC by any `v=DMARC1` policy; the verification TXT ' +
    'exactly.',
].join('\n');

const statusDescription = [
  '`PENDING` until every required record is found, then `VERIFIED` (with `verifiedAt`); `FAILED` is not used.',
  'A `VERIFIED` domain stays verified while its identity records are found, even when the MAIL FROM or DMARC ' +
    'records go missing (their `status` says so); when an identity record disappears it goes back to `PENDING`, ' +
    '`verifiedAt` becomes null and sending from it is refused until it is verified again.',
  'A domain that stays `PENDING` for 7 days (from when it was added, or fell back to `PENDING`) lapses: the ' +
    'background check removes it, with its SES identity, and any project may add it again.',
].join(' ');

/** A sender domain of the project, as every domain endpoint answers it. */
export class Domain {
  @IsUUID() id!: string;
  @IsString() domain!: string;
  @IsIn(['PENDING', 'VERIFIED', 'FAILED']) @JSONSchema({ description: statusDescription }) status!: 'PENDING' | 'VERIFIED' | 'FAILED';
  @ValidateNested({ each: true }) @Type(() => DomainRecord) @JSONSchema({ description: recordsDescription }) records!: DomainRecord[];
  @IsDateTime() createdAt!: Date;
  @NullableDateTime('When the domain became verified; null while pending.') verifiedAt!: Date | null;
}
