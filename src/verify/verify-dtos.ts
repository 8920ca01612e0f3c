import { Equals, IsBoolean, IsNotEmpty, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { Optional } from '../http/validate';

/** `POST /v1/verify`: the address to check (its syntax is checked by the handler, with the reason as message). */
export class VerifyRequest {
  @IsString() @IsNotEmpty() @JSONSchema({ description: 'The address to check.', format: 'email', minLength: 1 })
  email!: string;
}

/** A boolean finding with its meaning. */
const Flag = (description: string) => (target: object, key: string) => {
  IsBoolean()(target, key);
  JSONSchema({ description })(target, key);
};

/** What `/v1/verify` found about one address (SPEC "Email verification result"). */
export class VerificationResult {
  @IsString() @JSONSchema({ description: 'The address as checked (surrounding whitespace removed).' }) email!: string;
  @Flag(
    'True only when the syntax is valid, the domain has MX records (or, without MX, A/AAAA records) and ' +
      'it is not a disposable email service.',
  )
  valid!: boolean;
  @Flag('The domain (or a parent domain) belongs to a disposable email service.') isDisposable!: boolean;
  @Flag(
    'The address belongs to a relay service that hands out forwarding aliases (Apple Hide My Email, ' +
      'DuckDuckGo, Firefox Relay, SimpleLogin, addy.io, Proton Pass, ...).',
  )
  isAlias!: boolean;
  @Flag('The domain looks like a misspelling of a well-known mailbox provider; see `suggestion`.') isTypo!: boolean;
  @Flag('The part before the @ carries a `+tag` (`ada+news@example.com`).') isPlusAddressed!: boolean;
  @Flag('The domain is a free personal mailbox provider (Gmail, Outlook, Yahoo, iCloud, ...).') isPersonalEmail!: boolean;
  @Flag('The domain has MX or A/AAAA records in DNS.') domainExists!: boolean;
  @Flag(
    'The domain answered an HTTP request (`HEAD https://<domain>/` or `http://<domain>/`, any status) within about 3 seconds.',
  )
  hasWebsite!: boolean;
  @Flag('The domain has MX records (a null MX, "accepts no mail", does not count).') hasMxRecords!: boolean;

  @IsString({ each: true })
  @JSONSchema({
    type: 'array',
    description:
      'Short English sentences explaining the verdict and every flag that is set: first what DNS says about ' +
      'the domain (or why the syntax is invalid), then one sentence per finding.',
  })
  reasons!: string[];

  @Optional() @IsString()
  @JSONSchema({ description: 'Present only when `isTypo` is true: the domain that was probably meant (`gmail.com` for `gmial.com`).' })
  suggestion?: string;
}

/** The answer of `/v1/verify`. */
export class VerifyResult {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => VerificationResult) data!: VerificationResult;
}
