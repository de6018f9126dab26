import { z } from 'zod';
import { partitionSchema } from '../../partition';
import { inviteSnapshotSchema } from '../../catalog/workspace';
import { nameField } from '../../fields';
import { ROLES } from '../../permissions';
import { defineOperations, deletedSchema } from '../operation';
import { emailField, internal, invites, PER_TEAM, team, WRITE } from './common';
import { memberSchema } from './members';

/** Invites and their acceptance (docs/adr/0013). */

export const INVITE_TTL_HOURS_DEFAULT = 7 * 24;
export const INVITE_TTL_HOURS_MAX = 30 * 24;
export const inviteSchema = inviteSnapshotSchema.meta({ id: 'Invite' });
export const createInviteBody = z.strictObject({
  email: emailField,
  role: z.enum(ROLES).optional().default('agent'),
  /** How long the invitation link works: 1 hour to 30 days, default 7 days. */
  expiresInHours: z.number().int().min(1).max(INVITE_TTL_HOURS_MAX).optional().default(INVITE_TTL_HOURS_DEFAULT),
});
export type CreateInviteInput = z.output<typeof createInviteBody>;

/** `hdinv_` + the team's UUID without dashes (32 hex) + `_` + 40 base62: the team is known before a look-up. */
export const INVITE_TOKEN_RE = /^hdinv_([0-9a-f]{32})_([A-Za-z0-9]{40})$/;
export const acceptInviteBody = z.strictObject({
  token: z.string().min(1).max(200),
  /** The new member's display name (the invite knows only the email). */
  name: nameField(100),
  avatarUrl: z.url({ protocol: /^https$/ }).max(2_000).optional(),
});
export type AcceptInviteInput = z.output<typeof acceptInviteBody>;


export const INVITES = defineOperations({
  listInvites: {
    ...invites,
    method: 'GET',
    path: '/teams/{teamId}/invites',
    summary: 'List pending invites',
    description: `Pending invites only (not accepted, revoked or expired), newest first. Not paginated. ${PER_TEAM}`,
    permission: 'view_members',
    params: team,
    success: { status: 200, data: z.array(inviteSchema), shape: 'envelope' },
    errors: [],
  },
  createInvite: {
    ...invites,
    method: 'POST',
    path: '/teams/{teamId}/invites',
    summary: 'Invite someone by email',
    description:
      '`role` defaults to `agent`; `owner` is 400 (param role). 409 `resource_conflict` (param email) when the email is already a member ' +
      'or already has a pending invite (emails compare case-insensitively). The invitation link carries a single-use token valid for ' +
      '`expiresInHours` (default 168, at most 720); it is never returned here nor put in an event: `member.invited` tells the ' +
      "notifications service (the team name, the inviter's name), which asks for the link when it sends the message (docs/adr/0013). " +
      'The first secret key of the new member is in the partition of the key that invited them. `message` is the invitation ' +
      "message's outcome as its sender reports it: `queued` until then, then `sent` or `failed` (with `error`).",
    permission: 'manage_members',
    params: team,
    body: createInviteBody,
    success: { status: 201, data: inviteSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_conflict'],
  },
  revokeInvite: {
    ...invites,
    method: 'DELETE',
    path: '/teams/{teamId}/invites/{inviteId}',
    summary: 'Revoke an invite',
    description: 'Only a pending invite (404 otherwise). Its link then answers 410 `invite_revoked`. Emits `invite.revoked`.',
    permission: 'manage_members',
    params: { teamId: 'team', inviteId: 'invite' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },

});


export const INVITES_INTERNAL = defineOperations({
  acceptInviteToken: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/accept',
    summary: 'Accepts an invite by its token: the new member, and the partition of its first key',
    permission: null,
    params: {},
    body: acceptInviteBody,
    success: { status: 201, data: z.object({ member: memberSchema, mode: partitionSchema }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found', 'resource_conflict', 'invite_expired', 'invite_revoked', 'invite_already_accepted'],
  },
  issueInviteLink: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/{inviteId}/link',
    summary: "A pending invite's link with a new single-use token (any earlier link stops working); for the invitation message",
    permission: null,
    params: { inviteId: 'invite' },
    success: { status: 201, data: z.object({ acceptUrl: z.string(), token: z.string(), expiresAt: z.string().datetime() }), shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  recordInviteMessage: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/{inviteId}/message',
    summary: "The invitation message's outcome (sent, or failed with why), as its sender reports it; shown on the invite",
    permission: null,
    params: { inviteId: 'invite' },
    body: z.strictObject({ status: z.enum(['sent', 'failed']), error: z.string().max(500).optional() }),
    success: { status: 200, data: inviteSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
});
