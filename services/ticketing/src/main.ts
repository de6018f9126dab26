/** Standalone process: `PORT`, `MONGO_URL` (required here), `CUSTOMERS_URL` (required), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`. */
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startTicketing } from './index';

runServiceMain('ticketing', z.object({ CUSTOMERS_URL: z.string().url() }), (opts, env) => startTicketing({ ...opts, customersUrl: env.CUSTOMERS_URL }));
