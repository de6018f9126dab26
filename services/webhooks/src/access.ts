import type { Response } from 'express';
import { staffAccess, type RequestContext } from '@helpdesk/kit';

/** Webhooks are a staff resource (kit's staffAccess: publishable keys refused, then the permission). */
export const readAccess = (res: Response): RequestContext => staffAccess(res, 'read', 'view_webhooks', 'webhooks');
export const writeAccess = (res: Response): RequestContext => staffAccess(res, 'write', 'manage_webhooks', 'webhooks');
