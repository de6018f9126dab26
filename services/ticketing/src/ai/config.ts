import { localProvider } from './local-provider';
import { openAiProvider, type OpenAiProviderConfig } from './openai-provider';
import type { AiProvider } from './provider';

export interface AiConfig {
  /** An OpenAI-compatible server (AI_BASE_URL…); without it the local provider answers. */
  openai?: OpenAiProviderConfig;
}

/** The provider the AI actions ask (docs/adr/0029): the configured server, or the local one. */
export const aiProviderOf = (config: AiConfig = {}): AiProvider => (config.openai?.baseUrl ? openAiProvider(config.openai) : localProvider());
