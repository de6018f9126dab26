import type { Role } from '@helpdesk/contracts';

/**
 * What each role may read, through the API, of one event of each kind the least-privilege suites
 * make (docs/adr/0066): the owner's webhook, automation, AI settings, inbound-email secret, API key and
 * private saved view, and a spectator's own API key. Ticket events (every role reads them) aside.
 */
export const READABLE_BY_ROLE: Record<Role, string[]> = {
  owner: ['webhook.created', 'automation.created', 'ai_settings.updated', 'inbound_email.secret_rotated', "api_key.created (owner's)", "api_key.created (spectator's)", 'saved_view.created (private)'],
  admin: ['webhook.created', 'automation.created', 'ai_settings.updated', 'inbound_email.secret_rotated', "api_key.created (owner's)", "api_key.created (spectator's)"],
  manager: ['webhook.created', 'automation.created', 'ai_settings.updated'],
  librarian: ['ai_settings.updated'],
  agent: ['ai_settings.updated'],
  // Its own key's event only: none of the rest may it read through the API.
  spectator: ["api_key.created (spectator's)"],
};
