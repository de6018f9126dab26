import type { SettingsDoc } from './model';

/** The spec's settings object: `object`, `teamName`, `teamSlug`, and the fields docs/adr/0014 adds. */
export function settingsView(s: SettingsDoc) {
  return {
    object: 'settings' as const,
    teamName: s.teamName,
    teamSlug: s.teamSlug,
    defaultTimezone: s.defaultTimezone,
    defaultLanguage: s.defaultLanguage,
    supportEmail: s.supportEmail,
    autoCloseResolvedAfterDays: s.autoCloseResolvedAfterDays,
  };
}
