import { conflict } from '@helpdesk/kit';
import type { TicketDoc } from './model';

/** A write lost the race with another write to the same ticket; it is re-run from a fresh read. */
export class StaleTicket extends Error {}

/** A merged ticket cannot be changed, nor take messages (409). */
export const mergedConflict = (t: TicketDoc) => conflict(`Ticket ${t._id} was merged into ${t.mergedInto ?? 'another ticket'} and cannot be changed.`);
