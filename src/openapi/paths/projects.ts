import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  email,
  errorResponse,
  headerRef,
  jsonBody,
  jsonResponse,
  object,
  pathParam,
  schemaRef,
  sessionAuth,
  uuid,
} from '../builders';
import type { PathModule } from '../types';

const projectId = pathParam('id', 'The project.');
const userId = pathParam('userId', 'The member.');
const inviteId = pathParam('inviteId', 'The pending invite.');
const ownerOrAdmin = errorResponse(
  403,
  'FORBIDDEN',
  'Only an OWNER or ADMIN may manage members, and only an OWNER may make, demote or remove an OWNER',
);
const lastOwner = errorResponse(409, 'LAST_OWNER', 'The project would be left without an OWNER', {
  message: 'A project must keep at least one OWNER',
});

/** Project-scoped dashboard paths: onboarding state and membership. */
export const pathModule: PathModule = {
  tag: {
    name: 'Projects',
    description:
      'Project-scoped dashboard paths (session cookie). The caller must be a member; for anyone else the project does not exist (404).',
  },
  schemas: {
    SetupState: object({
      steps: described(
        arrayOf(
          object({
            id: { type: 'string', enum: ['project_created', 'domain_verified', 'first_contact', 'first_email', 'first_campaign', 'team_invited'] },
            title: { type: 'string' },
            done: { type: 'boolean' },
          }),
        ),
        'Every onboarding step, in order, each read from the stored records: a VERIFIED domain, any contact, an email ' +
          'actually sent (`sentAt` set, not merely queued), a campaign SENDING or SENT, a member or pending invite besides the owner.',
      ),
      completed: described({ type: 'boolean' }, 'True when every step is done.'),
    }),
    Member: object({ userId: uuid, email, role: schemaRef('MemberRole'), createdAt: dateTime }),
    Invite: {
      ...object({
        id: uuid,
        email,
        role: schemaRef('MemberRole'),
        createdAt: dateTime,
        waitingFor: described(
          { type: 'string', enum: ['SIGNUP', 'VERIFICATION'] },
          '`SIGNUP`: no account has this email yet; `VERIFICATION`: an account has it, but has not verified it.',
        ),
      }),
      description:
        'A pending invitation. It becomes a membership when an account verifies this email address (by the emailed link, a ' +
        'password reset or a GitHub/Google sign-in); until then the account sees nothing of the project.',
    },
  },
  paths: {
    '/projects/{id}/setup-state': {
      parameters: [projectId],
      get: {
        operationId: 'getSetupState',
        summary: 'Get onboarding state',
        security: sessionAuth,
        responses: { '200': jsonResponse('The onboarding checklist.', schemaRef('SetupState')), ...commonErrors(401, 404) },
      },
    },
    '/projects/{id}/members': {
      parameters: [projectId],
      get: {
        operationId: 'listMembers',
        summary: 'List members and pending invites',
        security: sessionAuth,
        responses: {
          '200': jsonResponse(
            'Members and pending invites.',
            object({ members: arrayOf(schemaRef('Member')), invites: arrayOf(schemaRef('Invite')) }),
          ),
          ...commonErrors(401, 404),
        },
      },
      post: {
        operationId: 'addMember',
        summary: 'Add or invite a member',
        description:
          'An account whose email is verified becomes a member at once (answered as `{ member }`). Any other email, including ' +
          'one of an account that has not verified it, gets a pending invite (answered as `{ invite, message }`), which takes ' +
          'effect once the address is verified. Either way an email goes to the address; it counts towards the 5 account ' +
          'emails an address may receive per hour (429 `RATE_LIMITED` beyond, and nothing is recorded).',
        security: sessionAuth,
        requestBody: jsonBody(
          object({ email, role: { ...schemaRef('MemberRole'), default: 'MEMBER' } }, ['email']),
        ),
        responses: {
          '201': jsonResponse(
            'The new member, or the pending invite and what it waits for.',
            {
              oneOf: [
                object({ member: schemaRef('Member') }),
                object({
                  invite: schemaRef('Invite'),
                  message: described({ type: 'string' }, 'Says that the membership waits for sign-up or verification.'),
                }),
              ],
            },
          ),
          '403': ownerOrAdmin,
          '409': jsonResponse(
            'The user is already a member (`ALREADY_MEMBER`) or the email already invited (`ALREADY_INVITED`).',
            schemaRef('ErrorResponse'),
          ),
          '429': errorResponse(429, 'RATE_LIMITED', 'The address was sent 5 account emails in the last hour; nothing is recorded', {
            message: 'Too many emails were sent to ada@example.com in the last hour; try again in 38 minutes',
            headers: { 'Retry-After': headerRef('Retry-After') },
          }),
          ...commonErrors(400, 401, 404, 413, 422),
        },
      },
    },
    '/projects/{id}/members/{userId}': {
      parameters: [projectId, userId],
      patch: {
        operationId: 'changeMemberRole',
        summary: "Change a member's role",
        security: sessionAuth,
        requestBody: jsonBody(object({ role: schemaRef('MemberRole') })),
        responses: {
          '200': jsonResponse('The member with the new role.', schemaRef('Member')),
          '403': ownerOrAdmin,
          '409': lastOwner,
          ...commonErrors(400, 401, 404, 413, 422),
        },
      },
      delete: {
        operationId: 'removeMember',
        summary: 'Remove a member',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('Removed.', schemaRef('Success')),
          '403': ownerOrAdmin,
          '409': lastOwner,
          ...commonErrors(401, 404),
        },
      },
    },
    '/projects/{id}/invites/{inviteId}': {
      parameters: [projectId, inviteId],
      delete: {
        operationId: 'withdrawInvite',
        summary: 'Withdraw a pending invite',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('Withdrawn.', schemaRef('Success')),
          '403': ownerOrAdmin,
          ...commonErrors(401, 404),
        },
      },
    },
  },
};
