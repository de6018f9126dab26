import type mongoose from 'mongoose';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import type { EnabledSlaRules } from './stored';

/** What a write of SLA rules uses: its transaction, the time, and the kept enabled rules it drops. */
export interface SlaRuleWriteDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  clock: Clock;
  enabledSlaRules: EnabledSlaRules;
}
