import { errorResponse } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { projectIdParam } from '../projects/projects-docs';
import { BillingConsumption, BillingLimits } from './billing-dtos';

/** What every operation of this table says about the caps, as Markdown. */
const RULES =
  '**Period.** The billing period is the calendar month in UTC: from `date_trunc(month, now)` to one month later.\n\n' +
  '**What counts.** `emails`: the email records of the project created in the period, from every source (`/v1/send`, ' +
  'campaigns, workflow `SEND_EMAIL` steps, campaign test sends), except those `SUPPRESSED`, `SKIPPED`, `FAILED` or ' +
  '`CANCELLED`: a `QUEUED` or `SCHEDULED` email holds its slot (in the period it was requested in), one that ends ' +
  '`FAILED` or `CANCELLED` frees it. `contacts`: the contacts the project stores now. ' +
  'Usage is counted from the stored records, so it is exact, also under concurrent requests.\n\n' +
  '**Where the caps hold.** A `/v1/send` request whose emails would exceed the cap is refused as a whole with 403 ' +
  '`BILLING_LIMIT_EXCEEDED` and stores nothing (suppressed recipients do not count). Creating contacts past the contacts ' +
  'cap (`POST /contacts`, `/v1/track`, `/v1/send`, segment members) is refused the same way; a CSV import stops with its ' +
  'job `FAILED` and the reason, keeping the rows of earlier chunks. `POST /campaigns/{id}/send` is refused (403) when no ' +
  'email is left; a campaign that reaches the cap while sending queues as many emails as are left and stops as `CANCELLED` ' +
  'with a `stoppedReason` naming the limit. A workflow `SEND_EMAIL` step past the cap is skipped (recorded in the ' +
  "execution's `context.skipped` with reason `billing_limit`) and the execution goes on. `POST /campaigns/{id}/test` " +
  'counts and is refused over the cap.';

export const tag: Tag = {
  name: 'Billing limits',
  description: `Per-project caps on emails sent per billing period and on contacts stored (session cookie).\n\n${RULES}`,
};

export const getBillingLimits: EndpointDoc = {
  operationId: 'getBillingLimits',
  summary: 'Get the billing limits',
  description: `Any member may read them.\n\n${RULES}`,
  parameters: [projectIdParam],
  response: { description: 'The caps.', shape: BillingLimits },
};

export const updateBillingLimits: EndpointDoc = {
  operationId: 'updateBillingLimits',
  summary: 'Update the billing limits',
  description:
    'OWNER or ADMIN. A category left out keeps its cap; `null` removes it; `0` allows nothing. Any other key is a 422. ' +
    `A lower cap than the current usage refuses further work in the category; nothing already stored is removed.\n\n${RULES}`,
  parameters: [projectIdParam],
  response: { description: 'The caps now.', shape: BillingLimits },
  errors: { '403': errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may change its billing limits') },
};

export const getBillingConsumption: EndpointDoc = {
  operationId: 'getBillingConsumption',
  summary: 'Get the current-period consumption',
  description: `Usage counted from the stored records now, beside the caps. Any member.\n\n${RULES}`,
  parameters: [projectIdParam],
  response: { description: 'Usage and caps.', shape: BillingConsumption },
};
