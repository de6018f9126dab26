import { paramRefusal } from '@helpdesk/contracts';
import { ApiError } from '@helpdesk/kit';
import type { Step } from '../exchange';

/** Step: the URL's team (400 for a team id that is not a UUID, 403 `team_access_denied` for another team). */
export const team: Step = (x) => {
  const { paramNames, paramValues } = x.match!;
  const params = x.route!.op.params;
  for (let i = 0; i < paramNames.length; i++) {
    if (params[paramNames[i]] !== 'team') continue;
    const bad = paramRefusal(paramNames[i], 'team', paramValues[i]);
    if (bad) throw new ApiError(bad.code, bad.message, bad.param);
    if (paramValues[i].toLowerCase() !== x.auth!.team.id) throw new ApiError('team_access_denied', 'This API key does not have access to this team.');
  }
};
