import type { AiSettings } from '@helpdesk/contracts';
import type { AiSettingsDoc } from './model';

export const settingsView = (s: AiSettingsDoc | null): AiSettings => ({
  object: 'ai_settings',
  includeInternalNotes: s?.includeInternalNotes ?? false,
  updatedAt: s?.updatedAt ? new Date(s.updatedAt).toISOString() : null,
});
