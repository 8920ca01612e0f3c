import { commonErrors, dateTime, described, errorResponse, jsonBody, jsonResponse, object, pathParam, schemaRef, sessionAuth } from '../builders';
import type { PathModule, Schema } from '../types';

const projectId = pathParam('id', 'The project.');
const count: Schema = { type: 'integer', minimum: 0 };
const cap = (description: string): Schema => ({ type: ['integer', 'null'], minimum: 0, maximum: 2147483647, description });

/** What every operation of this module says about the caps, as Markdown. */
const RULES =
  '**Period.** The billing period is the calendar month in UTC: from `date_trunc(month, now)` to one month later.\n\n' +
  '**What counts.** `emails`: the email records of the project created in the period, from every source (`/v1/send`, ' +
  'campaigns, workflow `SEND_EMAIL` steps, campaign test sends), except those `SUPPRESSED`, `SKIPPED` or `FAILED`: ' +
  'a `QUEUED` email holds its slot, one that ends `FAILED` frees it. `contacts`: the contacts the project stores now. ' +
  'Usage is counted from the stored records, so it is exact, also under concurrent requests.\n\n' +
  '**Where the caps hold.** A `/v1/send` request whose emails would exceed the cap is refused as a whole with 403 ' +
  '`BILLING_LIMIT_EXCEEDED` and stores nothing (suppressed recipients do not count). Creating contacts past the contacts ' +
  'cap (`POST /contacts`, `/v1/track`, `/v1/send`, segment members) is refused the same way; a CSV import stops with its ' +
  'job `FAILED` and the reason, keeping the rows of earlier chunks. `POST /campaigns/{id}/send` is refused (403) when no ' +
  'email is left; a campaign that reaches the cap while sending queues as many emails as are left and stops as `CANCELLED` ' +
  'with a `stoppedReason` naming the limit. A workflow `SEND_EMAIL` step past the cap is skipped (recorded in the ' +
  "execution's `context.skipped` with reason `billing_limit`) and the execution goes on. `POST /campaigns/{id}/test` " +
  'counts and is refused over the cap.';

const period = described(
  object({ start: dateTime, end: dateTime }),
  'The current billing period, the calendar month in UTC: `start` inclusive, `end` exclusive.',
);

const usage = (what: string): Schema =>
  object({
    used: described(count, what),
    limit: cap('The cap; null when there is none.'),
    remaining: { type: ['integer', 'null'], minimum: 0, description: '`limit - used`, at least 0; null when there is no cap.' },
  });

/** A project's billing caps and its consumption in the current period. */
export const pathModule: PathModule = {
  tag: {
    name: 'Billing limits',
    description: `Per-project caps on emails sent per billing period and on contacts stored (session cookie).\n\n${RULES}`,
  },
  schemas: {
    BillingLimits: object({
      period,
      limits: object({
        emails: cap('Emails sent per billing period; null: no cap.'),
        contacts: cap('Contacts stored at any time; null: no cap.'),
      }),
      updatedAt: { ...dateTime, type: ['string', 'null'], description: 'When the caps last changed; null when they never were set.' },
    }),
    BillingConsumption: object({
      period,
      emails: usage('Emails of the period that were or will be sent.'),
      contacts: usage('Contacts stored now.'),
    }),
  },
  paths: {
    '/users/@me/projects/{id}/billing-limits': {
      parameters: [projectId],
      get: {
        operationId: 'getBillingLimits',
        summary: 'Get the billing limits',
        description: `Any member may read them.\n\n${RULES}`,
        security: sessionAuth,
        responses: { '200': jsonResponse('The caps.', schemaRef('BillingLimits')), ...commonErrors(401, 404) },
      },
      put: {
        operationId: 'updateBillingLimits',
        summary: 'Update the billing limits',
        description:
          'OWNER or ADMIN. A category left out keeps its cap; `null` removes it; `0` allows nothing. Any other key is a 422. ' +
          `A lower cap than the current usage refuses further work in the category; nothing already stored is removed.\n\n${RULES}`,
        security: sessionAuth,
        requestBody: jsonBody(
          object(
            {
              emails: cap('Emails sent per billing period; null removes the cap.'),
              contacts: cap('Contacts stored at any time; null removes the cap.'),
            },
            [],
          ),
        ),
        responses: {
          '200': jsonResponse('The caps now.', schemaRef('BillingLimits')),
          '403': errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may change its billing limits'),
          ...commonErrors(400, 401, 404, 413, 422),
        },
      },
    },
    '/users/@me/projects/{id}/billing-consumption': {
      parameters: [projectId],
      get: {
        operationId: 'getBillingConsumption',
        summary: 'Get the current-period consumption',
        description: `Usage counted from the stored records now, beside the caps. Any member.\n\n${RULES}`,
        security: sessionAuth,
        responses: { '200': jsonResponse('Usage and caps.', schemaRef('BillingConsumption')), ...commonErrors(401, 404) },
      },
    },
  },
};
