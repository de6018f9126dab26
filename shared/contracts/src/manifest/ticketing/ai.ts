import { z } from 'zod';
import { aiSettingsSchema } from '../../catalog/ticketing';
import { defineOperations } from '../operation';
import { ticketIdField } from './tickets';

/** AI actions and settings (docs/adr/0029). */

export const AI_TEXT_MAX = 10_000;

export const AI_ACTIONS = ['auto-tag', 'suggest-reply', 'summarize', 'improve'] as const;
export type AiAction = (typeof AI_ACTIONS)[number];

export const aiBody = z
  .strictObject({
    action: z.enum(AI_ACTIONS),
    ticketId: ticketIdField.optional(),
    text: z.string().max(AI_TEXT_MAX).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.action === 'improve') {
      if (b.text === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['text'], input: undefined, message: 'required' });
      else if (!b.text.trim()) ctx.addIssue({ code: 'custom', path: ['text'], message: 'must not be empty' });
    } else if (b.ticketId === undefined) {
      ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['ticketId'], input: undefined, message: 'required' });
    }
  });
export type AiInput = z.output<typeof aiBody>;

export const aiResultSchema = z
  .object({
    object: z.literal('ai_result'),
    action: z.enum(AI_ACTIONS),
    /** `local` (built in, no network) or `openai` (an OpenAI-compatible server at AI_BASE_URL). */
    provider: z.enum(['local', 'openai']),
    /**
     * auto-tag: `{tags}` (suggested; the ticket is not changed); suggest-reply: `{suggestion, articleIds}`;
     * summarize: `{summary}`; improve: `{text}`.
     */
    result: z.object({
      tags: z.array(z.string()).optional(),
      suggestion: z.string().optional(),
      articleIds: z.array(z.string()).optional(),
      summary: z.string().optional(),
      text: z.string().optional(),
    }),
  })
  .meta({ id: 'AiResult' });
export type AiResult = z.output<typeof aiResultSchema>;

export const updateAiSettingsBody = z.strictObject({ includeInternalNotes: z.boolean().optional() });

export const AI_ACTIONS_OPERATIONS = defineOperations({
  runAiAction: {
    service: 'ticketing',
    tag: 'AI',
    keys: 'staff',
    permission: 'use_ai',
    method: 'POST',
    path: '/teams/{teamId}/ai',
    summary: 'Run an AI action',
    description:
      '`auto-tag` (suggested tags from the team\'s existing ticket tags; the ticket is not changed), `suggest-reply` (a reply built on ' +
      'the best-matching published articles of the partition; each article used counts as a use), `summarize` (the thread) need ' +
      '`ticketId`; `improve` needs `text`. Internal notes are sent to the provider only when the team\'s AI settings allow it. The ' +
      'provider is the built-in local one, or an OpenAI-compatible server when the service runs with AI_BASE_URL. 502 ' +
      '`ai_provider_error` when the provider answers with an error or nonsense; 503 `service_unavailable` when it cannot be reached ' +
      'or does not answer within the timeout (docs/adr/0029).',
    params: { teamId: 'team' },
    body: aiBody,
    success: { status: 200, data: aiResultSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'ai_provider_error', 'service_unavailable'],
  },
  getAiSettings: {
    service: 'ticketing',
    tag: 'AI',
    keys: 'staff',
    permission: 'use_ai',
    method: 'GET',
    path: '/teams/{teamId}/ai/settings',
    summary: "The team's AI settings",
    description: 'Per team and partition; `includeInternalNotes` defaults to false (`updatedAt` null until first changed).',
    params: { teamId: 'team' },
    success: { status: 200, data: aiSettingsSchema.meta({ id: 'AiSettings' }), shape: 'envelope' },
    errors: [],
  },
  updateAiSettings: {
    service: 'ticketing',
    tag: 'AI',
    keys: 'staff',
    permission: 'manage_settings',
    method: 'PATCH',
    path: '/teams/{teamId}/ai/settings',
    summary: "Change the team's AI settings",
    description: 'Emits `ai_settings.updated` when something changed.',
    params: { teamId: 'team' },
    body: updateAiSettingsBody,
    success: { status: 200, data: aiSettingsSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
});
