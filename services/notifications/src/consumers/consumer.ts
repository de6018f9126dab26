/** The consumer name events are de-duplicated under (`processed_events`: `notifications:<event id>`). */
export const CONSUMER = 'notifications';
