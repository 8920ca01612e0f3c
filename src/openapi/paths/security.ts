import { BOUNCE_RATE, COMPLAINT_RATE, MINIMUM_SENT, REPUTATION_WINDOW_DAYS } from '../../reputation/thresholds';
import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  errorResponse,
  jsonResponse,
  object,
  pathParam,
  schemaRef,
  sessionAuth,
  uuid,
} from '../builders';
import type { Operation, PathModule, Schema } from '../types';

const projectId = pathParam('id', 'The project.');
const share: Schema = { type: 'number', minimum: 0, maximum: 1 };
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

const stateOperation = (operationId: string): Operation => ({
  operationId,
  summary: 'Get the security state',
  description: `The project's rates, status and ten latest suspensions. Any member.\n\n${RULES}`,
  security: sessionAuth,
  responses: { '200': jsonResponse('The security state.', schemaRef('SecurityState')), ...commonErrors(401, 404) },
});

const exampleSuspension = {
  id: '7c1e9b0a-3d4f-4a2b-9c8d-1e2f3a4b5c6d',
  reason: 'Suspended automatically: bounce rate 10.4% over the last 7 days (13 of 125 emails) is at or above 10.0%',
  sent: 125,
  bounced: 13,
  complained: 0,
  bounceRate: 0.104,
  complaintRate: 0,
  createdAt: '2025-01-03T09:12:00.000Z',
  liftedAt: null,
  liftedBy: null,
};

/** A project's sender reputation: bounce and complaint rates, automatic suspension, lifting it. */
export const pathModule: PathModule = {
  tag: {
    name: 'Security',
    description:
      'Sender reputation (session cookie): bounce and complaint rates, automatic suspension of a project whose rates ' +
      'endanger deliverability, and lifting a suspension (operators only). A project the user is not a member of answers 404.',
  },
  schemas: {
    ProjectSuspension: object({
      id: uuid,
      reason: described({ type: 'string' }, 'Which rate reached its threshold, with the counts.'),
      sent: described({ type: 'integer' }, 'Emails sent in the window when the project was suspended.'),
      bounced: { type: 'integer' },
      complained: { type: 'integer' },
      bounceRate: share,
      complaintRate: share,
      createdAt: described(dateTime, 'When the project was suspended.'),
      liftedAt: described({ ...dateTime, type: ['string', 'null'] }, 'When an operator lifted it; null while in force.'),
      liftedBy: described({ ...uuid, type: ['string', 'null'] }, 'The operator account that lifted it; null when lifted with `npm run herald -- lift-suspension`.'),
    }),
    SecurityState: {
      ...object({
        status: described(
          { type: 'string', enum: ['OK', 'WARNING', 'SUSPENDED'] },
          '`SUSPENDED` while the project is disabled; `WARNING` when a warning threshold is reached (with enough emails sent); else `OK`.',
        ),
        disabled: { type: 'boolean' },
        disabledReason: { type: ['string', 'null'] },
        window: object({
          days: { type: 'integer', const: REPUTATION_WINDOW_DAYS },
          since: described(dateTime, `Start of the window: ${REPUTATION_WINDOW_DAYS} days ago, or the last lift if later.`),
        }),
        sent: described({ type: 'integer' }, 'Emails sent within the window.'),
        bounced: described({ type: 'integer' }, 'Of those, how many bounced permanently.'),
        complained: described({ type: 'integer' }, 'Of those, how many drew a complaint.'),
        bounceRate: described(share, '`bounced / sent`; 0 when nothing was sent.'),
        complaintRate: described(share, '`complained / sent`; 0 when nothing was sent.'),
        thresholds: object({
          minimumSent: { type: 'integer' },
          bounceRate: object({ warning: share, suspend: share }),
          complaintRate: object({ warning: share, suspend: share }),
        }),
        suspensions: described(arrayOf(schemaRef('ProjectSuspension')), 'The ten latest, newest first.'),
      }),
      example: {
        status: 'SUSPENDED',
        disabled: true,
        disabledReason: exampleSuspension.reason,
        window: { days: REPUTATION_WINDOW_DAYS, since: '2024-12-27T09:12:00.000Z' },
        sent: 125,
        bounced: 13,
        complained: 0,
        bounceRate: 0.104,
        complaintRate: 0,
        thresholds: { minimumSent: MINIMUM_SENT, bounceRate: BOUNCE_RATE, complaintRate: COMPLAINT_RATE },
        suspensions: [exampleSuspension],
      },
    },
  },
  paths: {
    '/users/@me/projects/{id}/security': {
      parameters: [projectId],
      get: stateOperation('getProjectSecurity'),
    },
    '/projects/{id}/security': {
      parameters: [projectId],
      get: stateOperation('getProjectSecurityState'),
    },
    '/users/@me/projects/{id}/security/lift': {
      parameters: [projectId],
      post: {
        operationId: 'liftProjectSuspension',
        summary: 'Lift a suspension',
        description:
          "Re-enables a suspended project. Only Herald's operators may: an account whose email is listed in `ADMIN_EMAILS` " +
          "(and verified), for any project, or `npm run herald -- lift-suspension <projectId>` on the server. The project's " +
          'own members, OWNER included, get 403 saying so; anyone else 404. Its keys work again, and its open suspensions ' +
          'are marked lifted by the caller. The rate window starts afresh at the lift, so the bounces that caused the ' +
          'suspension do not suspend it again at the next event. Email that failed while suspended is not sent again.',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('The security state after the lift.', schemaRef('SecurityState')),
          '403': errorResponse(
            403,
            'FORBIDDEN',
            "A suspension is lifted by a Herald operator, not by the project's members: ask your operator to lift it (an account " +
              'listed in ADMIN_EMAILS, or `npm run herald -- lift-suspension <projectId>` on the server) once the cause of the ' +
              'bounces or complaints is fixed.',
          ),
          '409': errorResponse(409, 'NOT_SUSPENDED', 'The project is not suspended'),
          ...commonErrors(401, 404),
        },
      },
    },
  },
};
