import { defineOperations } from '../operation';
import { WIDGET_RULES_DOC, widgetConfigSchema, widgetOperation } from '../ticketing/widget';

/** The widget's public look, answered by the workspace service, which owns the widget settings (docs/adr/0040). */

/** Answered by the workspace service, which owns the widget settings. */
export const WIDGET_CONFIG = defineOperations({
  getWidgetConfig: {
    ...widgetOperation,
    service: 'workspace',
    method: 'GET',
    path: '/teams/{teamId}/widget/config',
    summary: "The widget's look (position, primaryColor, greeting)",
    description: `What the widget script draws itself with, from the team's widget settings (docs/adr/0040). ${WIDGET_RULES_DOC}`,
    params: { teamId: 'team' },
    success: { status: 200, data: widgetConfigSchema, shape: 'envelope' },
    errors: [],
  },
});
