import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsString, IsUUID, MaxLength, ValidateBy } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsDateTime, Nullable, NullableDateTime, Optional } from '../http/validate';
import { CursorPageQuery } from '../http/page-query';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from './webhook-events';

/** The longest endpoint URL taken. */
const URL_MAX = 2048;

/** The most event names one endpoint lists. */
const EVENTS_MAX = 100;

const code = (value: string) => ({ context: { code: value } });

/** Whether a value is an absolute http or https URL. */
function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  return ['http:', 'https:'].includes(new URL(value).protocol);
}

const urlChecks = (): PropertyDecorator[] => [
  IsString(),
  MaxLength(URL_MAX),
  ValidateBy({ name: 'isHttpUrl', validator: { validate: isHttpUrl } }, { message: 'url must be an absolute http or https URL', ...code('invalid_string') }),
  JSONSchema({
    type: 'string',
    maxLength: URL_MAX,
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+(?:[/?#]\\S*)?$',
    description:
      'An absolute http or https URL, at most 2048 characters. Loopback, private, link-local and other non-public ' +
      'targets (an IP address, or a name resolving to one) are refused with 422 unless the server runs with ' +
      '`WEBHOOK_ALLOW_PRIVATE=true`.',
  }) as PropertyDecorator,
];

const eventsChecks = (): PropertyDecorator[] => [
  IsArray(),
  ArrayMinSize(1, { message: 'events must name at least one event type, or *' }),
  ArrayMaxSize(EVENTS_MAX),
  ValidateBy(
    { name: 'isWebhookEvent', validator: { validate: (name) => typeof name === 'string' && (name === '*' || isWebhookEventType(name)) } },
    { each: true, message: 'each of events must be an event type Herald emits (see the list), segment.<slug>.entry|exit, or *', ...code('invalid_enum_value') },
  ),
  // A function, so this schema replaces what the custom check above would generate (a reference to `Array`).
  JSONSchema(() => ({
    type: 'array',
    minItems: 1,
    maxItems: EVENTS_MAX,
    items: { anyOf: [{ type: 'string', enum: ['*', ...WEBHOOK_EVENT_TYPES] }, { type: 'string', pattern: '^segment\\.[a-z0-9]+(?:-[a-z0-9]+)*\\.(?:entry|exit)$' }] },
    description:
      'The event types to receive, or `["*"]` for all of them; a name given twice counts once. ' +
      '`segment.<slug>.entry` and `segment.<slug>.exit` name one segment by its slug.',
  })) as PropertyDecorator,
];

const apply = (decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => decorators.forEach((decorator) => decorator(target, key));

const descriptionNote = 'A note for the project, up to 500 characters; never sent; null clears it.';

/** `POST /webhooks`: where to send which events. */
export class CreateWebhookBody {
  @apply(urlChecks()) url!: string;
  @apply(eventsChecks()) events!: string[];
  @Nullable(descriptionNote) @IsString() @MaxLength(500) description?: string | null;
}

/** `PATCH /webhooks/{id}`: any subset of the fields; `enabled: true` turns a disabled endpoint back on and forgets its failures. */
export class UpdateWebhookBody {
  @Optional() @apply(urlChecks()) url?: string;
  @Optional() @apply(eventsChecks()) events?: string[];
  @Nullable(descriptionNote) @IsString() @MaxLength(500) description?: string | null;

  @Optional() @IsBoolean()
  @JSONSchema({ description: '`false` stops deliveries (those under way end FAILED at their next attempt); `true` resumes them for new events.' })
  enabled?: boolean;
}

/** `GET /webhooks/{id}/deliveries`: a cursor page. */
export class WebhookDeliveryListQuery extends CursorPageQuery {}

/** A webhook endpoint as every endpoint route answers it (`secret` only on creation and rotation). */
export class Webhook {
  @IsUUID() id!: string;
  @IsString() url!: string;
  @IsArray() @IsString({ each: true }) events!: string[];
  @Nullable() @IsString() description!: string | null;

  @IsBoolean()
  @JSONSchema({ description: '`false` once disabled through the API or after 5 days of failed deliveries (`disabledReason` says which).' })
  enabled!: boolean;

  @Optional() @IsString()
  @JSONSchema({
    description:
      'The signing secret, `whsec_` and base64: in the answers of `POST /webhooks` and `POST /webhooks/{id}/rotate-secret` ' +
      'only; keep it, it is not shown again.',
    pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  })
  secret?: string;

  @NullableDateTime('Since when every delivery attempt has failed (no 2xx since); null while deliveries succeed.') failingSince!: Date | null;
  @Nullable() @IsString() @JSONSchema({ description: 'Why the endpoint is disabled; null while enabled.' }) disabledReason!: string | null;
  @NullableDateTime('When it was disabled; null while enabled.') disabledAt!: Date | null;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

/** One event's delivery to an endpoint. */
export class WebhookDelivery {
  @IsUUID() id!: string;
  @IsUUID() @JSONSchema({ description: 'The event; `webhook-id` is `msg_<eventId>`.' }) eventId!: string;
  @IsString() eventType!: string;

  @IsIn(['PENDING', 'DELIVERED', 'FAILED'])
  @JSONSchema({ description: '`PENDING` while attempts go on, `DELIVERED` after a 2xx answer, `FAILED` when they ran out or the endpoint was disabled.' })
  status!: 'PENDING' | 'DELIVERED' | 'FAILED';

  @IsInt() @JSONSchema({ description: 'Attempts made so far.' }) attempts!: number;
  @Nullable() @IsInt() @JSONSchema({ description: 'The HTTP status of the last answer; null before an answer (or when the last attempt got none).' }) lastStatusCode!: number | null;
  @Nullable() @IsString() @JSONSchema({ description: 'Why the last attempt failed; null once delivered.' }) lastError!: string | null;
  @IsDateTime() createdAt!: Date;
  @NullableDateTime('When the 2xx answer came; null until then.') deliveredAt!: Date | null;
}
