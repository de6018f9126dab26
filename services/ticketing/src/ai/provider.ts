import type { AiAction, AiResult } from '@helpdesk/contracts';

/** One message of the thread as a provider sees it (internal notes only when the team allows it). */
export interface ThreadMessage {
  sender: string;
  content: string;
  isInternal: boolean;
}

/** A published article ticketing chose as relevant for suggest-reply (best first). */
export interface ArticleCandidate {
  id: string;
  title: string;
  content: string;
}

/** Everything an AI action may use; ticketing gathers it, the provider only writes. */
export interface AiRequest {
  action: AiAction;
  ticket?: { title: string; customerName: string | null; tags: string[] };
  thread?: ThreadMessage[];
  /** auto-tag: the team's existing ticket tags, most used first (suggestions come from these only). */
  knownTags?: string[];
  /** suggest-reply: the best-matching published articles. */
  articles?: ArticleCandidate[];
  /** improve: the text to clean up. */
  text?: string;
}

/** What a provider answers; `articleIds` (suggest-reply) are the articles it actually used. */
export type AiResultBody = AiResult['result'];

/**
 * An AI provider (docs/adr/0029): the built-in local one or an OpenAI-compatible server. It throws
 * `ApiError('ai_provider_error')` (502) when the provider answered unusably and
 * `ApiError('service_unavailable')` (503) when it could not be reached in time.
 */
export interface AiProvider {
  readonly name: AiResult['provider'];
  run(request: AiRequest): Promise<AiResultBody>;
}
