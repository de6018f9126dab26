/** Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`. */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startGame } from './index';

runServiceMain('game', z.object({}), (opts) => startGame(opts));
