/** The chat widget's tests (docs/adr/0040): its paths, a visitor's calls, and a reader of its conversation stream. */
import type { TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

export const widgetPath = (teamId: string) => `/teams/${teamId}/widget`;
export const conversationPath = (teamId: string, id: string, token: string, tail = '') =>
  `${widgetPath(teamId)}/conversations/${id}${tail}?conversationToken=${encodeURIComponent(token)}`;

/** Starts a conversation as a visitor with `key` and returns what the visitor got (with its token). */
export async function startConversation(tp: TestPlatform, teamId: string, key: string, body: Record<string, unknown>): Promise<any> {
  return expectOk(await tp.api.post(`${widgetPath(teamId)}/conversations`, body, { key }), 201);
}

export interface WidgetFrame {
  id: string;
  event: string;
  data: any;
}

/**
 * The conversation's stream read as the widget reads it (fetch with the key's header), collecting
 * its frames; `waitFor(n)` resolves once n message frames came.
 */
export class ConversationStream {
  readonly frames: WidgetFrame[] = [];
  readonly response: Promise<Response>;
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(url: string, headers: Record<string, string>) {
    this.response = fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: this.abort.signal });
    void this.read();
  }

  private async read(): Promise<void> {
    try {
      const res = await this.response;
      if (res.status !== 200 || !res.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (id && event && data) {
            this.frames.push({ id, event, data: JSON.parse(data) });
            for (const w of this.waiters.splice(0)) w();
          }
        }
      }
    } catch {
      // closed by the test
    }
  }

  async waitFor(n: number, what = 'frames', timeoutMs = 15_000): Promise<WidgetFrame[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length < n) {
      if (Date.now() > deadline) throw new Error(`waited for ${n} ${what}, got ${this.frames.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
    return this.frames;
  }

  close(): void {
    this.abort.abort();
  }
}
