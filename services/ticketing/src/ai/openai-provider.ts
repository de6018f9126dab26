import OpenAI, { APIConnectionError, APIError } from 'openai';
import { ApiError } from '@helpdesk/kit';
import type { AiProvider, AiRequest, AiResultBody } from './provider';

/** An OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio…): AI_BASE_URL, AI_API_KEY, AI_MODEL, AI_TIMEOUT_MS. */
export interface OpenAiProviderConfig {
  baseUrl: string;
  apiKey?: string;
  model?: string;
  /** One request's limit; the provider is not retried (the client is waiting). Default 15 s. */
  timeoutMs?: number;
}

const SYSTEM = 'You are a helpful, concise customer support assistant. Answer with the requested text only.';

function threadLines(r: AiRequest): string {
  return (r.thread ?? []).map((m) => `${m.isInternal ? 'internal note' : m.sender}: ${m.content}`).join('\n');
}

/** The prompt of each action; every answer is plain text except auto-tag's (a JSON array of tags). */
function prompt(r: AiRequest): string {
  const ticket = `Ticket: ${r.ticket?.title ?? ''}\n${threadLines(r)}`;
  switch (r.action) {
    case 'auto-tag':
      return `${ticket}\n\nChoose the tags that fit this ticket, only from this list: ${JSON.stringify(r.knownTags ?? [])}. ` +
        'Answer with a JSON array of strings and nothing else.';
    case 'summarize':
      return `${ticket}\n\nSummarize this support ticket in at most three sentences.`;
    case 'suggest-reply':
      return `${ticket}\n\nKnowledge base articles:\n${(r.articles ?? []).map((a) => `# ${a.title}\n${a.content}`).join('\n\n') || '(none)'}\n\n` +
        `Write the agent's next reply to ${r.ticket?.customerName || 'the customer'}, using the articles where they help.`;
    case 'improve':
      return `Improve the spelling, grammar and tone of this support reply, keeping its meaning:\n\n${r.text ?? ''}`;
  }
}

/** The answer's text into the action's result; an answer that cannot be used is a 502. */
function toResult(r: AiRequest, content: string): AiResultBody {
  const text = content.trim();
  if (!text) throw new ApiError('ai_provider_error', 'The AI provider answered with an empty message.');
  switch (r.action) {
    case 'auto-tag': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ''));
      } catch {
        throw new ApiError('ai_provider_error', 'The AI provider did not answer auto-tag with a JSON array of tags.');
      }
      if (!Array.isArray(parsed)) throw new ApiError('ai_provider_error', 'The AI provider did not answer auto-tag with a JSON array of tags.');
      // Only the team's existing tags, as the team spells them.
      const known = new Map((r.knownTags ?? []).map((t) => [t.toLowerCase(), t]));
      const have = new Set((r.ticket?.tags ?? []).map((t) => t.toLowerCase()));
      const tags = parsed.filter((t): t is string => typeof t === 'string').map((t) => known.get(t.toLowerCase())).filter((t): t is string => !!t);
      return { tags: [...new Set(tags)].filter((t) => !have.has(t.toLowerCase())).slice(0, 10) };
    }
    case 'summarize':
      return { summary: text };
    case 'suggest-reply':
      return { suggestion: text, articleIds: (r.articles ?? []).map((a) => a.id) };
    case 'improve':
      return { text };
  }
}

export function openAiProvider(config: OpenAiProviderConfig): AiProvider {
  const client = new OpenAI({
    baseURL: config.baseUrl,
    // Local servers (Ollama, vLLM) need no key, but the SDK wants one.
    apiKey: config.apiKey || 'not-needed',
    timeout: config.timeoutMs ?? 15_000,
    maxRetries: 0,
  });
  const model = config.model ?? 'gpt-4o-mini';
  return {
    name: 'openai',
    async run(r) {
      let content: string | null | undefined;
      try {
        const completion = await client.chat.completions.create({
          model,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: prompt(r) },
          ],
        });
        content = completion.choices?.[0]?.message?.content;
      } catch (err) {
        // Not reached or no answer in time: 503 (retry later). An answer that is an error: 502.
        if (err instanceof APIConnectionError) throw new ApiError('service_unavailable', 'The AI provider could not be reached or did not answer in time; retry later.');
        if (err instanceof APIError) throw new ApiError('ai_provider_error', `The AI provider answered with an error (HTTP ${err.status ?? 'unknown'}).`);
        throw new ApiError('ai_provider_error', 'The AI provider answered with something that is not a chat completion.');
      }
      return toResult(r, content ?? '');
    },
  };
}
