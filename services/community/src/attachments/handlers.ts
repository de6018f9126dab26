import { COMMUNITY } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CommunityRules } from '../rules';

/** `/teams/{teamId}/community/attachments…`: upload an image, read one back (docs/adr/0018). */
export const attachmentHandlers = ({ attachments }: CommunityRules) =>
  handlersFor(COMMUNITY)({
    uploadCommunityAttachment: ({ ctx, body }) => attachments.upload(ctx, body),
    getCommunityAttachment: ({ ctx, params }) => attachments.read(ctx, params.attachmentId),
  });
