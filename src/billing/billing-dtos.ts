import { Equals, IsIn, IsInt, IsString, IsUrl, Length, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { IsDateTime, Nullable, NullableDateTime, Optional } from '../http/validate';

const WEB_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/** `POST /users/@me/projects/{id}/checkout`: every field optional. */
export class CheckoutBody {
  @Optional() @IsString() @Length(1, 255) @JSONSchema({ description: 'A Stripe price id; default `STRIPE_PRICE_ID`.' })
  priceId?: string;

  @Optional() @IsUrl(WEB_URL) @JSONSchema({ description: 'Where Stripe sends the user after paying; `{CHECKOUT_SESSION_ID}` is filled in.' })
  successUrl?: string;

  @Optional() @IsUrl(WEB_URL) @JSONSchema({ description: 'Where Stripe sends the user who gives up.' })
  cancelUrl?: string;
}

/** `POST /users/@me/projects/{id}/billing-portal`: where the portal's back link leads. */
export class BillingPortalBody {
  @Optional() @IsUrl(WEB_URL) @JSONSchema({ description: "Where the portal's back link leads." })
  returnUrl?: string;
}

/** A Stripe Checkout Session to send the user to. */
export class CheckoutSession {
  @IsString() @JSONSchema({ description: 'The Stripe Checkout Session id (`cs_...`).' }) id!: string;
  @IsUrl() @JSONSchema({ description: 'Where to send the user to pay.' }) url!: string;
}

/** A Stripe customer portal session. */
export class BillingPortalSession {
  @IsUrl() @JSONSchema({ description: 'Where to send the user to manage their subscription.' }) url!: string;
}

/** One invoice of the project's Stripe customer (amounts in the currency's smallest unit). */
export class Invoice {
  @IsString() id!: string;
  @Nullable() @IsString() number!: string | null;
  @Nullable('As Stripe reports it.') @IsIn(['draft', 'open', 'paid', 'uncollectible', 'void'])
  status!: string | null;
  @IsString() @JSONSchema({ description: 'Three-letter ISO code, lower case.' }) currency!: string;
  @IsInt() @JSONSchema({ description: 'In the smallest unit of the currency (cents).' }) amountDue!: number;
  @IsInt() amountPaid!: number;
  @IsInt() total!: number;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() periodStart!: Date;
  @IsDateTime() periodEnd!: Date;
  @Nullable('The invoice page at Stripe.') @IsString() hostedInvoiceUrl!: string | null;
  @Nullable('The PDF at Stripe.') @IsString() invoicePdf!: string | null;
}

/** What the payments webhook answers for an event it handled or ignored. */
export class PaymentEventReceipt {
  @Equals(true) received!: true;
}

/** The largest cap Postgres stores (integer). */
export const MAX_LIMIT = 2_147_483_647;
const given = (_: object, value: unknown) => value !== undefined && value !== null;

/** `PUT /users/@me/projects/{id}/billing-limits`: a number caps a category, null removes its cap, leaving it out keeps it. */
export class BillingLimitsBody {
  @ValidateIf(given) @IsInt() @Min(0) @Max(MAX_LIMIT)
  @JSONSchema({ type: ['integer', 'null'], description: 'Emails sent per billing period; null removes the cap.' })
  emails?: number | null;

  @ValidateIf(given) @IsInt() @Min(0) @Max(MAX_LIMIT)
  @JSONSchema({ type: ['integer', 'null'], description: 'Contacts stored at any time; null removes the cap.' })
  contacts?: number | null;
}

class BillingPeriod {
  @IsDateTime() start!: Date;
  @IsDateTime() end!: Date;
}

const periodProse = { description: 'The current billing period, the calendar month in UTC: `start` inclusive, `end` exclusive.' };

class BillingCaps {
  @Nullable('Emails sent per billing period; null: no cap.') @IsInt() @Min(0) @Max(MAX_LIMIT)
  emails!: number | null;

  @Nullable('Contacts stored at any time; null: no cap.') @IsInt() @Min(0) @Max(MAX_LIMIT)
  contacts!: number | null;
}

/** A project's caps in the current period. */
export class BillingLimits {
  @ValidateNested() @Type(() => BillingPeriod) @JSONSchema(periodProse) period!: BillingPeriod;
  @ValidateNested() @Type(() => BillingCaps) limits!: BillingCaps;
  @NullableDateTime('When the caps last changed; null when they never were set.') updatedAt!: Date | null;
}

class BillingUsage {
  @IsInt() @Min(0) used!: number;
  @Nullable('The cap; null when there is none.') @IsInt() @Min(0) @Max(MAX_LIMIT) limit!: number | null;
  @Nullable('`limit - used`, at least 0; null when there is no cap.') @IsInt() @Min(0) remaining!: number | null;
}

/** What the project used this period, beside its caps. */
export class BillingConsumption {
  @ValidateNested() @Type(() => BillingPeriod) @JSONSchema(periodProse) period!: BillingPeriod;
  @ValidateNested() @Type(() => BillingUsage) @JSONSchema({ description: 'Emails of the period that were or will be sent.' }) emails!: BillingUsage;
  @ValidateNested() @Type(() => BillingUsage) @JSONSchema({ description: 'Contacts stored now.' }) contacts!: BillingUsage;
}
