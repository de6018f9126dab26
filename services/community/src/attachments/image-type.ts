import { filetypeinfo } from 'magic-bytes.js';
import type { CommunityAttachment } from '@helpdesk/contracts';

type ImageType = CommunityAttachment['content_type'];
const IMAGES: Record<string, { type: ImageType; ext: string }> = {
  'image/jpeg': { type: 'image/jpeg', ext: 'jpg' },
  'image/png': { type: 'image/png', ext: 'png' },
  'image/gif': { type: 'image/gif', ext: 'gif' },
  'image/webp': { type: 'image/webp', ext: 'webp' },
};

/**
 * The image type of the bytes, judged by their signature (magic-bytes.js), never by a name or a
 * declared type: JPEG, PNG, GIF or WebP, or null for anything else (an executable, SVG, text…).
 */
export function imageTypeOf(bytes: Uint8Array): { type: ImageType; ext: string } | null {
  const best = filetypeinfo(bytes)[0];
  return (best?.mime && IMAGES[best.mime]) || null;
}
