import { onEvery, type Subscription } from '@helpdesk/kit';
import { streamableOf, type EventLog } from '../events/stream/log';

/** Every event goes into the stream's log as well (trigger-test's as the test event it sent), docs/adr/0021. */
export const streamLogSubscription = (log: Pick<EventLog, 'append'>): Subscription => onEvery('#', (event) => log.append(streamableOf(event)));
