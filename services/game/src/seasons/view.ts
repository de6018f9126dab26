import type { Season } from './calendar';

/** A season as answers show it. */
export const seasonView = (s: Season) => ({ id: s.id, name: s.name, startsAt: s.startsAt.toISOString(), endsAt: s.endsAt.toISOString() });
