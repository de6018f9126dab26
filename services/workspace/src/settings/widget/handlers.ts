import { WIDGET_CONFIG, WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/settings/widget` */
export const widgetHandlers = ({ widget }: WorkspaceRules) => ({
  ...handlersFor(WORKSPACE)({
    getWidgetSettings: ({ ctx }) => widget.get(ctx),
    updateWidgetSettings: ({ ctx, body }) => widget.update(ctx, body),
  }),
  // `/teams/{teamId}/widget/config`: the widget's look as a page reads it with a publishable key (docs/adr/0040).
  ...handlersFor(WIDGET_CONFIG)({
    getWidgetConfig: async ({ ctx }) => {
      const { position, primaryColor, greeting } = await widget.get(ctx);
      return { object: 'widget_config' as const, teamId: ctx.teamId, position, primaryColor, greeting };
    },
  }),
});
