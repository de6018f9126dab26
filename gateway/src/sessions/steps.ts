import type { Step } from '../pipeline/exchange';

/** Step: a write made with the session cookie needs the platform's own Origin and the session's CSRF token (docs/adr/0068). */
export const sessionWrites: Step = (x, g) => g.sessions?.guardWrite(x);
