/** Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`. */
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startKnowledge } from './index';

runServiceMain('knowledge', z.object({}), (opts) => startKnowledge(opts));
