/**
 * Where ticketing reads the time for ticket timestamps and SLA clocks. Tests replace `now` on the
 * running service's `rules.clock` to stand on a Friday at 17:55 (docs/adr/0026); nothing else does.
 */
export { systemClock, type Clock } from '@helpdesk/kit';
