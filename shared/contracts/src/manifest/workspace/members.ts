import { z } from 'zod';
import { memberPreferencesSchema, memberSnapshotSchema, SUBSCRIPTION_STATUSES } from '../../catalog/workspace';
import { nameField, paginationFields } from '../../fields';
import { PERMISSIONS, ROLES } from '../../permissions';
import { defineOperations, deletedSchema } from '../operation';
import { emailField, internal, memberParams, members, PER_TEAM, team, WRITE } from './common';

/** Members, their roles and preferences (docs/adr/0012); the gateway's questions about a key's member and a new team's owner. */

/** Roles a member can be given by PATCH or an invite: every role but owner (a team has exactly one). */
export const ASSIGNABLE_ROLES = ROLES.filter((r) => r !== 'owner') as Exclude<(typeof ROLES)[number], 'owner'>[];

export const memberSchema = memberSnapshotSchema.meta({ id: 'Member' });
export const listTeamMembersQuery = z.strictObject({ role: z.enum(ROLES).optional(), ...paginationFields(20, 100) });
export const updateMemberBody = z.strictObject({ role: z.enum(ROLES) });
export const memberRoleSchema = z.object({ id: z.string(), role: z.enum(ROLES) }).meta({ id: 'MemberRole' });
export const memberPreferencesBody = z.strictObject({ boringMode: z.boolean() });

/** What the gateway needs about a key's member and team (cached with the key, docs/adr/0012). */
export const keyAccessSchema = z.object({
  team: z.object({ name: z.string(), slug: z.string(), subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES).optional() }).nullable(),
  member: z.object({ id: z.string(), role: z.enum(ROLES), permissions: z.array(z.enum(PERMISSIONS)) }).nullable(),
});
export type KeyAccess = z.infer<typeof keyAccessSchema>;


export const MEMBERS = defineOperations({
  listMembers: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members',
    summary: 'List members',
    description:
      `Oldest member first (the owner leads). \`role\` filters. Pagination is top-level (\`pagination\` beside \`data\`), as the spec says. ${PER_TEAM} ` +
      '`level` and `xp`: the game of the key\'s partition (see `GET /members/{memberId}`).',
    permission: 'view_members',
    params: team,
    query: listTeamMembersQuery,
    success: { status: 200, data: z.array(memberSchema), shape: 'envelope', pagination: 'top' },
    errors: ['parameter_invalid'],
  },
  getMember: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members/{memberId}',
    summary: 'Retrieve a member',
    description:
      '`permissions` is the role\'s set (shared/contracts permissions.ts). `level` and `xp` are the member\'s season level and XP in ' +
      'the game of the key\'s partition (each partition plays its own, docs/adr/0033): a test key sees what test-partition ' +
      'closes paid, a live key the live partition\'s; 1 and 0 until the game reports progress, a moment after the close that paid it.',
    permission: 'view_members',
    params: memberParams,
    success: { status: 200, data: memberSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateMember: {
    ...members,
    method: 'PATCH',
    path: '/teams/{teamId}/members/{memberId}',
    summary: "Change a member's role",
    description:
      "Answers `{id, role}`. `role: owner` is 400 (param role): a team has exactly one owner. The owner's own role cannot change: 409 " +
      "`resource_conflict`. The member's keys carry the new role's permissions at the gateway within 5 seconds (docs/adr/0012).",
    permission: 'manage_members',
    params: memberParams,
    body: updateMemberBody,
    success: { status: 200, data: memberRoleSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found', 'resource_conflict'],
  },
  deleteMember: {
    ...members,
    method: 'DELETE',
    path: '/teams/{teamId}/members/{memberId}',
    summary: 'Remove a member',
    description:
      "Answers `{deleted: true, id}`. The owner cannot be removed (409 `resource_conflict`). Within 5 seconds every key of the member " +
      'answers 401 `invalid_api_key` at the gateway (docs/adr/0012).',
    permission: 'manage_members',
    params: memberParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found', 'resource_conflict'],
  },
  getMemberPreferences: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members/{memberId}/preferences',
    summary: "A member's preferences",
    description: '`boringMode` (default false). Needs `manage_members`, as the spec says.',
    permission: 'manage_members',
    params: memberParams,
    success: { status: 200, data: memberPreferencesSchema.meta({ id: 'MemberPreferences' }), shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateMemberPreferences: {
    ...members,
    method: 'PATCH',
    path: '/teams/{teamId}/members/{memberId}/preferences',
    summary: "Change a member's preferences",
    description: '`boringMode: true` hides XP, bosses and achievements for that member while XP keeps accruing. Emits `member.preferences_updated` when it changes.',
    permission: 'manage_members',
    params: memberParams,
    body: memberPreferencesBody,
    success: { status: 200, data: memberPreferencesSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found'],
  },

});


export const MEMBERS_INTERNAL = defineOperations({
  getKeyAccess: {
    ...internal,
    method: 'GET',
    path: '/internal/access',
    summary: "A key's member (role, permissions) and the team's name and slug; member null when removed",
    permission: null,
    params: {},
    query: z.strictObject({ memberId: z.string().max(100).optional() }),
    success: { status: 200, data: keyAccessSchema, shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createTeamOwner: {
    ...internal,
    method: 'POST',
    path: '/internal/owner',
    summary: "A new team's owner member and settings (idempotent: the existing owner when there is one)",
    permission: null,
    params: {},
    body: z.strictObject({ name: nameField(100), email: emailField, teamName: z.string().min(1).max(255), teamSlug: z.string().min(1).max(64) }),
    success: { status: 201, data: memberSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
});
