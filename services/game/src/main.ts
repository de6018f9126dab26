/** Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`. */
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startGame } from './index';

runServiceMain('game', z.object({}), (opts) => startGame(opts));
