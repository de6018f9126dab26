import type { UpdateWidgetInput } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import { fieldChanges, givenFields } from '../field-changes';
import type { WidgetDoc } from '../model';
import type { SettingsRules } from '../rules';
import { widgetSettingsView as view, widgetSnapshot } from './view';

/** The chat widget's look and where it may be embedded (docs/adr/0014). */
export function widgetRules(settings: SettingsRules) {
  return {
    get: async (ctx: RequestContext) => view((await settings.read(ctx)).widget),

    update(ctx: RequestContext, input: UpdateWidgetInput) {
      return settings.change(
        ctx,
        (cur, c) => {
          const given = givenFields(input);
          if ('allowedOrigins' in given) given.allowedOrigins = [...new Set(given.allowedOrigins as string[])];
          c.change('widget', { ...cur.widget, ...given });
        },
        (doc, _changes, previous) => ({
          type: 'widget_settings.updated',
          data: { widget: widgetSnapshot(doc.widget), ...fieldChanges(previous.widget as WidgetDoc, doc.widget) },
        }),
        (doc) => view(doc.widget),
      );
    },
  };
}
