import type { WidgetDoc } from '../model';

/** The widget's settings as its event carries them. */
export const widgetSnapshot = (w: WidgetDoc) => ({
  position: w.position as 'bottom-right',
  primaryColor: w.primaryColor,
  greeting: w.greeting,
  allowedOrigins: [...w.allowedOrigins],
});

/** The chat widget's settings as answers show them. */
export const widgetSettingsView = (w: WidgetDoc) => ({ object: 'widget_settings' as const, ...widgetSnapshot(w) });
