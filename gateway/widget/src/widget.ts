/**
 * The chat widget (docs/adr/0040), served by the gateway at `/widget/v1.js` and embedded with one tag:
 *
 *   <script src="https://<platform>/widget/v1.js" data-team-id="<team uuid>" data-key="pk_live_…" async></script>
 *
 * It draws a launcher and a chat panel in a shadow root (the host page's CSS cannot reach them),
 * styled by the team's widget settings, and talks to the widget's public endpoints with the
 * publishable key. The conversation's id and token stay in localStorage, so a reload keeps it; the
 * agents' public replies come live over the conversation's event stream (read with fetch, which can
 * send the key's header; EventSource cannot).
 */
import { panelCss } from './style';

interface Config {
  position: string;
  primaryColor: string;
  greeting: string;
}
interface Message {
  id: string;
  sender: 'customer' | 'agent' | 'system' | 'ai';
  senderName: string | null;
  content: string;
  createdAt: string;
}
interface Conversation {
  id: string;
  title: string;
  awaitingEmailConfirmation: boolean;
  customer: { name: string; email: string };
  messages: Message[];
  conversationToken?: string;
}
interface Stored {
  conversationId: string;
  conversationToken: string;
  lastEventId: string | null;
}
interface ApiError {
  error?: { code?: string; message?: string };
}

const script = (document.currentScript ?? document.querySelector('script[data-team-id][src*="/widget/"]')) as HTMLScriptElement | null;

function start(tag: HTMLScriptElement): void {
  const teamId = tag.dataset.teamId ?? '';
  const key = tag.dataset.key ?? '';
  const apiBase = tag.dataset.apiBase ?? `${new URL(tag.src, location.href).origin}/api/v1`;
  const base = `${apiBase}/teams/${encodeURIComponent(teamId)}/widget`;
  const storageKey = `helpdesk-widget:${teamId}:${key.startsWith('pk_test_') ? 'test' : 'live'}`;
  const headers = { Authorization: `Bearer ${key}` };

  const host = document.createElement('div');
  host.id = 'helpdesk-widget';
  const root = host.attachShadow({ mode: 'open' });
  document.body.appendChild(host);

  const el = <K extends keyof HTMLElementTagNameMap>(tagName: K, attrs: Record<string, string> = {}, text?: string) => {
    const node = document.createElement(tagName);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const style = el('style');
  const launcher = el('button', { type: 'button', class: 'launcher', 'aria-label': 'Open chat', 'aria-expanded': 'false', 'aria-controls': 'hd-panel' }, 'Chat');
  const panel = el('section', { id: 'hd-panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'hd-title', hidden: '' });
  const header = el('header');
  const title = el('h2', { id: 'hd-title' }, 'Chat with us');
  const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Close chat' }, '×');
  header.append(title, close);
  const greeting = el('p', { class: 'greeting' });
  // The live region holds a list (a list element with role=log would lose its list semantics).
  const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const items = el('ol');
  log.append(items);
  const alert = el('p', { class: 'alert', role: 'alert' });
  const form = el('form', { class: 'compose', novalidate: '' });
  const field = (id: string, label: string, input: HTMLInputElement | HTMLTextAreaElement) => {
    const wrap = el('div', { class: 'field' });
    input.id = id;
    wrap.append(el('label', { for: id }, label), input);
    return wrap;
  };
  const nameInput = el('input', { type: 'text', name: 'name', autocomplete: 'name', required: '', maxlength: '200' });
  const emailInput = el('input', { type: 'email', name: 'email', autocomplete: 'email', required: '', maxlength: '254' });
  const messageInput = el('textarea', { name: 'message', rows: '3', required: '', maxlength: '5000' });
  const identity = el('div', { class: 'identity' });
  identity.append(field('hd-name', 'Your name', nameInput), field('hd-email', 'Your email', emailInput));
  const send = el('button', { type: 'submit', class: 'send' }, 'Send');
  form.append(identity, field('hd-message', 'Message', messageInput), send);
  // A new customer's email is confirmed with the code mailed to it (their first confirmed sign-in).
  const confirmForm = el('form', { class: 'confirm', novalidate: '', hidden: '' });
  const confirmText = el('p');
  const codeInput = el('input', { type: 'text', name: 'code', autocomplete: 'one-time-code', maxlength: '32' });
  confirmForm.append(confirmText, field('hd-code', 'Confirmation code', codeInput), el('button', { type: 'submit', class: 'send' }, 'Confirm email'));
  panel.append(header, greeting, log, alert, confirmForm, form);
  root.append(style, launcher, panel);

  let stored: Stored | null = null;
  try {
    stored = JSON.parse(localStorage.getItem(storageKey) ?? 'null') as Stored | null;
  } catch {
    stored = null;
  }
  const save = () => {
    if (stored) localStorage.setItem(storageKey, JSON.stringify(stored));
    else localStorage.removeItem(storageKey);
  };
  const shown = new Set<string>();

  function render(m: Message): void {
    if (shown.has(m.id)) return;
    shown.add(m.id);
    const mine = m.sender === 'customer';
    const item = el('li', { class: mine ? 'mine' : 'theirs', 'data-message-id': m.id });
    item.append(el('span', { class: 'who' }, mine ? 'You' : (m.senderName ?? 'Support')), el('p', {}, m.content));
    items.append(item);
    log.scrollTop = log.scrollHeight;
  }
  const showError = (text: string) => (alert.textContent = text);
  const conversing = () => {
    identity.hidden = true;
    nameInput.required = false;
    emailInput.required = false;
  };

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      // Offline, or refused by CORS (this page's origin is not allowed): the browser tells us no more.
      throw Object.assign(new Error('The chat cannot be reached from this page right now.'), { status: 0 });
    }
    const json = (await res.json().catch(() => ({}))) as { data?: T } & ApiError;
    if (!res.ok) throw Object.assign(new Error(json.error?.message ?? `Request failed (${res.status}).`), { status: res.status, code: json.error?.code });
    return json.data as T;
  }
  const awaitConfirmation = (c: Conversation) => {
    confirmForm.hidden = !c.awaitingEmailConfirmation;
    confirmText.textContent = `We emailed a confirmation code to ${c.customer.email}. Enter it to confirm your email.`;
  };
  confirmForm.addEventListener('submit', (e) => {
    e.preventDefault();
    showError('');
    if (!stored || !codeInput.value.trim()) return;
    call('POST', `/conversations/${stored.conversationId}/confirmation${tokenQuery()}`, { code: codeInput.value.trim() }).then(
      () => {
        confirmForm.hidden = true;
        showError('');
        greeting.textContent = 'Thank you, your email is confirmed.';
        messageInput.focus();
      },
      (err: Error) => showError(err.message),
    );
  });
  const tokenQuery = () => `?conversationToken=${encodeURIComponent(stored!.conversationToken)}`;

  /** The conversation's live messages: server-sent events over fetch, reconnecting with the last id. */
  let streaming: AbortController | null = null;
  async function stream(): Promise<void> {
    if (!stored || streaming) return;
    const abort = (streaming = new AbortController());
    try {
      const res = await fetch(`${base}/conversations/${stored.conversationId}/stream${tokenQuery()}`, {
        headers: { ...headers, Accept: 'text/event-stream', ...(stored.lastEventId ? { 'Last-Event-ID': stored.lastEventId } : {}) },
        signal: abort.signal,
      });
      if (res.status === 404) return forget();
      if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | null = null;
          let event = 'message';
          let data = '';
          for (const line of frame.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (event === 'message' && data) render(JSON.parse(data) as Message);
          if (id && stored) {
            stored.lastEventId = id;
            save();
          }
        }
      }
    } catch {
      // The network dropped or the page left: reconnect below.
    } finally {
      streaming = null;
    }
    if (!abort.signal.aborted && stored) setTimeout(() => void stream(), 3_000);
  }

  function forget(): void {
    streaming?.abort();
    stored = null;
    save();
    shown.clear();
    items.replaceChildren();
    identity.hidden = false;
    confirmForm.hidden = true;
    nameInput.required = true;
    emailInput.required = true;
  }

  async function resume(): Promise<void> {
    if (!stored) return;
    conversing();
    void stream();
    try {
      const c = await call<Conversation>('GET', `/conversations/${stored.conversationId}${tokenQuery()}`);
      c.messages.forEach(render);
      awaitConfirmation(c);
    } catch (err) {
      if ((err as { status?: number }).status === 404) forget();
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    showError('');
    const content = messageInput.value.trim();
    if (!stored && (!nameInput.value.trim() || !emailInput.checkValidity() || !emailInput.value)) {
      showError('Please give your name and a valid email address.');
      (nameInput.value.trim() ? emailInput : nameInput).focus();
      return;
    }
    if (!content) {
      showError('Please write a message.');
      messageInput.focus();
      return;
    }
    send.disabled = true;
    const sent = stored
      ? call<Message>('POST', `/conversations/${stored.conversationId}/messages${tokenQuery()}`, { content }).then(render)
      : call<Conversation>('POST', '/conversations', { name: nameInput.value.trim(), email: emailInput.value.trim(), message: content }).then((c) => {
          stored = { conversationId: c.id, conversationToken: c.conversationToken!, lastEventId: null };
          save();
          conversing();
          c.messages.forEach(render);
          awaitConfirmation(c);
          void stream();
        });
    sent
      .then(() => {
        messageInput.value = '';
        messageInput.focus();
      })
      .catch((err: Error) => showError(err.message))
      .finally(() => (send.disabled = false));
  });

  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    launcher.setAttribute('aria-label', open ? 'Close chat' : 'Open chat');
    if (open) (identity.hidden ? messageInput : nameInput).focus();
    else launcher.focus();
  };
  launcher.addEventListener('click', () => setOpen(panel.hidden));
  close.addEventListener('click', () => setOpen(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') setOpen(false);
  });

  const apply = (c: Config) => {
    style.textContent = panelCss(c.primaryColor, c.position);
    greeting.textContent = c.greeting;
  };
  apply({ position: 'bottom-right', primaryColor: '#4f46e5', greeting: '' });
  call<Config>('GET', '/config').then(apply, (err: Error) => showError(err.message));
  void resume();
}

if (script) {
  if (document.body) start(script);
  else document.addEventListener('DOMContentLoaded', () => start(script));
}
