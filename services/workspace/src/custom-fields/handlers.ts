import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/custom-fields…`: any secret key reads, `manage_settings` writes. */
export const customFieldHandlers = ({ customFields }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    listCustomFields: ({ ctx, query }) => customFields.list(ctx, query.entity),
    createCustomField: ({ ctx, body }) => customFields.create(ctx, body),
    getCustomField: ({ ctx, params }) => customFields.get(ctx, params.fieldId),
    updateCustomField: ({ ctx, params, body }) => customFields.update(ctx, params.fieldId, body),
    deleteCustomField: ({ ctx, params }) => customFields.remove(ctx, params.fieldId),
    reorderCustomFields: ({ ctx, body }) => customFields.reorder(ctx, body),
  });
