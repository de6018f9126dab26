import { paramRefusal } from '@helpdesk/contracts';
import { ApiError } from '@helpdesk/kit';
import type { Step } from '../exchange';

/**
 * Step: the other path ids (400 `invalid_id_format` naming the param for anything that is neither a
 * UUID nor a known prefixed id; a team-chosen key such as a status key must be a slug).
 */
export const ids: Step = (x) => {
  const { paramNames, paramValues } = x.match!;
  const params = x.route!.op.params;
  for (let i = 0; i < paramNames.length; i++) {
    const kind = params[paramNames[i]];
    if (kind === 'team') continue;
    const bad = paramRefusal(paramNames[i], kind, paramValues[i]);
    if (bad) throw new ApiError(bad.code, bad.message, bad.param);
  }
};
