import { described, errorResponse, headerRef, jsonResponse, object, pathParam, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { dtoRef } from '../openapi/operations';
import { Invite, Member, ProjectMembers, SetupState } from './projects-dtos';

export const tag: Tag = {
  name: 'Projects',
  description:
    'Project-scoped dashboard paths (session cookie). The caller must be a member; for anyone else the project does not exist (404).',
};

/** The `{id}` of every project-scoped dashboard path. */
export const projectIdParam = pathParam('id', 'The project.');
const params = [projectIdParam, pathParam('userId', 'The member.')];
const ownerOrAdmin = errorResponse(
  403,
  'FORBIDDEN',
  'Only an OWNER or ADMIN may manage members, and only an OWNER may make, demote or remove an OWNER',
);
const lastOwner = errorResponse(409, 'LAST_OWNER', 'The project would be left without an OWNER', {
  message: 'A project must keep at least one OWNER',
});

export const getSetupState: EndpointDoc = {
  operationId: 'getSetupState',
  summary: 'Get onboarding state',
  parameters: [projectIdParam],
  response: { description: 'The onboarding checklist.', shape: SetupState },
};

export const listMembers: EndpointDoc = {
  operationId: 'listMembers',
  summary: 'List members and pending invites',
  parameters: [projectIdParam],
  response: { description: 'Members and pending invites.', shape: ProjectMembers },
};

export const addMember: EndpointDoc = {
  operationId: 'addMember',
  summary: 'Add or invite a member',
  description:
    'An account whose email is verified becomes a member at once (answered as `{ member }`). Any other email, including ' +
    'one of an account that has not verified it, gets a pending invite (answered as `{ invite, message }`), which takes ' +
    'effect once the address is verified. Either way an email goes to the address; it counts towards the 5 account ' +
    'emails an address may receive per hour (429 `RATE_LIMITED` beyond, and nothing is recorded).',
  parameters: [projectIdParam],
  response: {
    status: 201,
    description: 'The new member, or the pending invite and what it waits for.',
    shape: {
      oneOf: [
        object({ member: dtoRef(Member) }),
        object({
          invite: dtoRef(Invite),
          message: described({ type: 'string' }, 'Says that the membership waits for sign-up or verification.'),
        }),
      ],
    },
  },
  errors: {
    '403': ownerOrAdmin,
    '409': jsonResponse(
      'The user is already a member (`ALREADY_MEMBER`) or the email already invited (`ALREADY_INVITED`).',
      schemaRef('ErrorResponse'),
    ),
    '429': errorResponse(429, 'RATE_LIMITED', 'The address was sent 5 account emails in the last hour; nothing is recorded', {
      message: 'Too many emails were sent to ada@example.com in the last hour; try again in 38 minutes',
      headers: { 'Retry-After': headerRef('Retry-After') },
    }),
  },
};

export const changeMemberRole: EndpointDoc = {
  operationId: 'changeMemberRole',
  summary: "Change a member's role",
  parameters: params,
  response: { description: 'The member with the new role.', shape: Member },
  errors: { '403': ownerOrAdmin, '409': lastOwner },
};

export const removeMember: EndpointDoc = {
  operationId: 'removeMember',
  summary: 'Remove a member',
  parameters: params,
  response: { description: 'Removed.', shape: schemaRef('Success') },
  errors: { '403': ownerOrAdmin, '409': lastOwner },
};

export const withdrawInvite: EndpointDoc = {
  operationId: 'withdrawInvite',
  summary: 'Withdraw a pending invite',
  parameters: [projectIdParam, pathParam('inviteId', 'The pending invite.')],
  response: { description: 'Withdrawn.', shape: schemaRef('Success') },
  errors: { '403': ownerOrAdmin },
};
