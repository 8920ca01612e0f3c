import { errorResponse } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { projectIdParam } from '../projects/projects-docs';
import { SecurityState } from './security-dtos';
import { BOUNCE_RATE, COMPLAINT_RATE, MINIMUM_SENT, REPUTATION_WINDOW_DAYS } from './thresholds';

const pct = (value: number) => `${+(value * 100).toFixed(2)}%`;

const RULES = [
  `Herald watches each project's **bounce rate** (emails that bounced permanently) and **complaint rate** (emails ` +
    `marked as spam) over the emails it sent in the last ${REPUTATION_WINDOW_DAYS} days; after a suspension is lifted ` +
    'the window starts afresh at the lift. Transient bounces do not count.',
  '',
  '| rate | warning at | suspended at |',
  '|---|---|---|',
  `| bounce | ${pct(BOUNCE_RATE.warning)} | ${pct(BOUNCE_RATE.suspend)} |`,
  `| complaint | ${pct(COMPLAINT_RATE.warning)} | ${pct(COMPLAINT_RATE.suspend)} |`,
  '',
  `Thresholds count when reached, and only once the window holds at least ${MINIMUM_SENT} sent emails. The rates ` +
    'are checked as each permanent bounce or complaint arrives (`POST /webhooks/mail-events`); reaching a suspension ' +
    'threshold suspends the project at once: every API-key request then answers 403 `PROJECT_DISABLED`, and email ' +
    'still queued is not sent (it is marked `FAILED`, "Not sent: the project is suspended"). Each suspension is ' +
    'recorded with the counts behind it.',
].join('\n');

export const tag: Tag = {
  name: 'Security',
  description:
    'Sender reputation (session cookie): bounce and complaint rates, automatic suspension of a project whose rates ' +
    'endanger deliverability, and lifting a suspension (operators only). A project the user is not a member of answers 404.',
};

const reason = 'Suspended automatically: bounce rate 10.4% over the last 7 days (13 of 125 emails) is at or above 10.0%';
const exampleState = {
  status: 'SUSPENDED',
  disabled: true,
  disabledReason: reason,
  window: { days: REPUTATION_WINDOW_DAYS, since: '2024-12-27T09:12:00.000Z' },
  sent: 125,
  bounced: 13,
  complained: 0,
  bounceRate: 0.104,
  complaintRate: 0,
  thresholds: { minimumSent: MINIMUM_SENT, bounceRate: BOUNCE_RATE, complaintRate: COMPLAINT_RATE },
  suspensions: [
    {
      id: '7c1e9b0a-3d4f-4a2b-9c8d-1e2f3a4b5c6d',
      reason,
      sent: 125,
      bounced: 13,
      complained: 0,
      bounceRate: 0.104,
      complaintRate: 0,
      createdAt: '2025-01-03T09:12:00.000Z',
      liftedAt: null,
      liftedBy: null,
    },
  ],
};

const stateDoc = (operationId: string): EndpointDoc => ({
  operationId,
  summary: 'Get the security state',
  description: `The project's rates, status and ten latest suspensions. Any member.\n\n${RULES}`,
  parameters: [projectIdParam],
  response: { description: 'The security state.', shape: SecurityState, example: exampleState },
});

export const getProjectSecurity = stateDoc('getProjectSecurity');
export const getProjectSecurityState = stateDoc('getProjectSecurityState');

export const liftProjectSuspension: EndpointDoc = {
  operationId: 'liftProjectSuspension',
  summary: 'Lift a suspension',
  description:
    "Re-enables a suspended project. Only Herald's operators may: an account whose email is listed in `ADMIN_EMAILS` " +
    "(and verified), for any project, or `npm run herald -- lift-suspension <projectId>` on the server. The project's " +
    'own members, OWNER included, get 403 saying so; anyone else 404. Its keys work again, and its open suspensions ' +
    'are marked lifted by the caller. The rate window starts afresh at the lift, so the bounces that caused the ' +
    'suspension do not suspend it again at the next event. Email that failed while suspended is not sent again.',
  parameters: [projectIdParam],
  response: { description: 'The security state after the lift.', shape: SecurityState },
  errors: {
    '403': errorResponse(
      403,
      'FORBIDDEN',
      "A suspension is lifted by a Herald operator, not by the project's members: ask your operator to lift it (an account " +
        'listed in ADMIN_EMAILS, or `npm run herald -- lift-suspension <projectId>` on the server) once the cause of the ' +
        'bounces or complaints is fixed.',
    ),
    '409': errorResponse(409, 'NOT_SUSPENDED', 'The project is not suspended'),
  },
};
