import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/settings/widget` */
export const widgetHandlers = ({ widget }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getWidgetSettings: ({ ctx }) => widget.get(ctx),
    updateWidgetSettings: ({ ctx, body }) => widget.update(ctx, body),
  });
