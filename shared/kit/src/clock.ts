/**
 * Where code reads the time: the system's, or a test's. A service takes one in its options and
 * passes it to what needs "now"; a test stands on a given moment by replacing `now` on the clock it
 * handed over (or the one the service made), so nothing else in the process moves with it.
 */
export interface Clock {
  now(): Date;
}

/** A clock on the system's time: a new one each call, so that replacing its `now` moves only its owner. */
export const systemClock = (): Clock => ({ now: () => new Date() });
