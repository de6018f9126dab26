/** Standalone process: `PORT`, `MONGO_URL` (required here), `CUSTOMERS_URL` (required), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`;
 * the AI provider (docs/adr/0029): `AI_BASE_URL` (an OpenAI-compatible server; the local provider when unset), `AI_API_KEY`, `AI_MODEL`, `AI_TIMEOUT_MS`. */
import { z } from 'zod';
import { optionalUrl, runServiceMain } from '@helpdesk/kit';
import { startTicketing } from './index';

const env = z.object({
  CUSTOMERS_URL: z.string().url(),
  AI_BASE_URL: optionalUrl().describe('An OpenAI-compatible server for POST /ai (OpenAI, Ollama, vLLM…); unset = the built-in local provider.'),
  AI_API_KEY: z.string().optional().describe('The AI server\'s API key, if it needs one.'),
  AI_MODEL: z.string().optional().describe('The chat model to ask (default gpt-4o-mini).'),
  AI_TIMEOUT_MS: z.coerce.number().int().positive().optional().describe('How long one AI request may take before POST /ai answers 503 (default 15000).'),
});

runServiceMain('ticketing', env, (opts, e) =>
  startTicketing({
    ...opts,
    customersUrl: e.CUSTOMERS_URL,
    ai: e.AI_BASE_URL ? { openai: { baseUrl: e.AI_BASE_URL, apiKey: e.AI_API_KEY, model: e.AI_MODEL, timeoutMs: e.AI_TIMEOUT_MS } } : undefined,
  }),
);
