import { z } from 'zod';

/** What the workspace service's resources share: field rules and the operations' common parts. */
export const MEMBER_EMAIL_MAX = 254;
export const emailField = z.email().max(MEMBER_EMAIL_MAX);
/** `#rrggbb`, either case; stored lowercase. */
export const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { message: 'must be a hex color #rrggbb' })
  .transform((c) => c.toLowerCase());

/** Canonical IANA zone names as the platform's ICU knows them (kept current with Node's time-zone data), plus UTC. */
export const TIME_ZONES = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);
export const isTimeZone = (tz: string) => TIME_ZONES.has(tz);
export const timeZoneField = z.string().max(64).refine(isTimeZone, { message: 'must be an IANA time zone name such as Europe/Berlin' });

export const members = { service: 'workspace', tag: 'Members', keys: 'staff' } as const;
export const invites = { service: 'workspace', tag: 'Invites', keys: 'staff' } as const;
export const settings = { service: 'workspace', tag: 'Settings', keys: 'staff' } as const;
export const customFields = { service: 'workspace', tag: 'Custom fields', keys: 'staff' } as const;
export const auditLog = { service: 'workspace', tag: 'Audit log', keys: 'staff' } as const;
export const billing = { service: 'workspace', tag: 'Billing', keys: 'staff' } as const;
export const memberParams = { teamId: 'team', memberId: 'member' } as const;
export const team = { teamId: 'team' } as const;
export const WRITE = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
export const PER_TEAM = 'Per team: test and live keys of the team see the same data (docs/adr/0012).';

/** Asked by the gateway (which owns teams and keys) with a token it mints for the team; never routed by it, never in the public document. */
export const internal = { service: 'workspace', tag: 'Members', keys: 'secret', internal: true } as const;
