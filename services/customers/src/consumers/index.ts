import type mongoose from 'mongoose';
import type { EventBus, Logger } from '@helpdesk/kit';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
}

/** Everything the customers service reacts to, in one list. */
export async function subscribeConsumers(_bus: EventBus, _deps: ConsumerDeps): Promise<void> {}
