import type mongoose from 'mongoose';
import { COMMUNITY_LIMITS, type AttachmentRef, type CommunityAttachment, type UploadAttachmentInput } from '@helpdesk/contracts';
import {
  eventScopeOf,
  foundOr404,
  inTransaction,
  newUuid,
  notFound,
  parameterInvalid,
  scoped,
  withOutbox,
  type Logger,
  type RequestContext,
  type Scope,
  type ScopedFilter,
  type Unscoped,
} from '@helpdesk/kit';
import type { CommunityModels } from '../collections';
import type { PostDoc } from '../posts/model';
import type { AttachmentStorage } from '../storage';
import { imageTypeOf } from './image-type';
import type { AttachmentDoc, AttachmentOwner } from './model';
import { attachmentView } from './view';

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
/** An upload no post or comment lists within a day is removed (by a later upload of the same team and partition). */
export const UNATTACHED_TTL_MS = 24 * 3600 * 1000;
const MB = (n: number) => `${(n / (1024 * 1024)).toFixed(0)} MB`;

/** The bytes of a base64 upload, or 400 param content. */
function decoded(content: string): Buffer {
  const text = content.replace(/\s+/g, '');
  if (text.length % 4 !== 0 || !BASE64_RE.test(text)) throw parameterInvalid('content', 'content must be the file encoded as base64.');
  return Buffer.from(text, 'base64');
}

/** The rules of uploads and of attachments listed by posts and comments (docs/adr/0018). */
export function attachmentRules({ conn, models, storage, logger }: { conn: mongoose.Connection; models: CommunityModels; storage: AttachmentStorage; logger: Logger }) {
  /** Removes files after their records are gone; a failure is logged (an orphaned file, never a dangling reference). */
  async function deleteFiles(paths: string[]): Promise<void> {
    for (const path of paths) {
      try {
        await storage.delete(path);
      } catch (err) {
        logger.warn({ err, path }, 'attachment file not deleted');
      }
    }
  }

  /**
   * Removes the scope's uploads that no post or comment listed and that are older than `before`,
   * records and files. Each upload sweeps its own team and partition, so no cross-team job is needed.
   * In a transaction: a post claiming one of them at the same moment conflicts, and one of the two re-runs.
   */
  async function sweepUnattached(scope: Scope, before: Date): Promise<string[]> {
    const files = await inTransaction(conn, (session) => release(scope, session, { owner: null, createdAt: { $lt: before } }));
    await deleteFiles(files);
    return files;
  }

  async function release(scope: Scope, session: mongoose.ClientSession, filter: ScopedFilter<AttachmentDoc>): Promise<string[]> {
    const db = scoped(models, scope);
    const rows = await db.attachments.find(filter, { storagePath: 1 }).session(session).lean<Pick<AttachmentDoc, 'storagePath'>[]>();
    if (rows.length) await db.attachments.deleteMany(filter, { session });
    return rows.map((r) => r.storagePath);
  }

  return {
    deleteFiles,
    /** Forgets the uploads of `filter` in the caller's transaction; answers their storage paths, for deleteFiles after the commit. */
    release,

    /** Checks the bytes (nothing is stored for a refused file), stores them, then records the upload. */
    async upload(ctx: RequestContext, input: UploadAttachmentInput): Promise<CommunityAttachment> {
      const bytes = decoded(input.content);
      if (bytes.length > COMMUNITY_LIMITS.attachmentBytesMax) {
        throw parameterInvalid('content', `The file is ${bytes.length} bytes; attachments may be at most ${MB(COMMUNITY_LIMITS.attachmentBytesMax)} (${COMMUNITY_LIMITS.attachmentBytesMax} bytes).`);
      }
      const image = imageTypeOf(bytes);
      if (!image) throw parameterInvalid('content', 'Attachments must be JPEG, PNG, GIF or WebP images (judged by the file\'s content, not its name).');
      const id = newUuid();
      const doc: Unscoped<AttachmentDoc> = {
        _id: id,
        filename: input.filename,
        contentType: image.type,
        sizeBytes: bytes.length,
        storagePath: `community/${ctx.mode}/${ctx.teamId}/${id}.${image.ext}`,
        owner: null,
        createdAt: new Date(),
      };
      await storage.put(doc.storagePath, bytes, image.type);
      let attachment: CommunityAttachment;
      try {
        attachment = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          await scoped(models, ctx).attachments.create([doc], { session });
          const view = attachmentView(doc);
          emit({ type: 'community.attachment.uploaded', data: { attachment: view } });
          return view;
        });
      } catch (err) {
        await deleteFiles([doc.storagePath]);
        throw err;
      }
      await sweepUnattached(ctx, new Date(doc.createdAt.getTime() - UNATTACHED_TTL_MS));
      return attachment;
    },

    sweepUnattached,

    /**
     * Gives the uploads `refs` names to `owner` inside the caller's transaction and answers the
     * entries to store on it. Each must be an upload of the scope, not listed twice, not owned by
     * anything else (it may already be the owner's: a PATCH keeping it), and echoed fields must match.
     */
    async claim(scope: Scope, session: mongoose.ClientSession, refs: AttachmentRef[], owner: AttachmentOwner, param = 'attachments'): Promise<CommunityAttachment[]> {
      const db = scoped(models, scope);
      const seen = new Set<string>();
      const out: CommunityAttachment[] = [];
      for (const [i, ref] of refs.entries()) {
        const p = `${param}.${i}`;
        if (seen.has(ref.storage_path)) throw parameterInvalid(p, `The attachment '${ref.storage_path}' is listed twice.`);
        seen.add(ref.storage_path);
        const found = await db.attachments.findOne({ storagePath: ref.storage_path }).session(session).lean<AttachmentDoc>();
        if (!found) throw parameterInvalid(p, `No upload has the storage_path '${ref.storage_path}'; upload the image first (POST /community/attachments).`);
        if (found.owner && !(found.owner.kind === owner.kind && found.owner.id === owner.id)) {
          throw parameterInvalid(p, `The attachment '${ref.storage_path}' already belongs to another ${found.owner.kind}.`);
        }
        const entry = attachmentView(found);
        for (const key of ['id', 'filename', 'content_type', 'size_bytes'] as const) {
          if (ref[key] !== undefined && ref[key] !== entry[key]) throw parameterInvalid(`${p}.${key}`, `${key} does not match the upload ('${entry[key]}').`);
        }
        if (!found.owner) await db.attachments.updateOne({ _id: found._id }, { $set: { owner } }, { session });
        out.push(entry);
      }
      return out;
    },

    /** The attachment and its bytes. Publishable keys read only attachments of public posts (and their comments). */
    async read(ctx: RequestContext, id: string): Promise<CommunityAttachment & { content: string }> {
      const db = scoped(models, ctx);
      const found = await foundOr404(db.attachments.findOne({ _id: id }).lean<AttachmentDoc>(), 'community attachment', id);
      if (ctx.keyType === 'publishable') {
        const post = found.owner && (await db.posts.findOne({ _id: found.owner.postId }, { visibility: 1 }).lean<Pick<PostDoc, 'visibility'>>());
        if (!post || post.visibility !== 'public') throw notFound('community attachment', id);
      }
      const bytes = await foundOr404(storage.get(found.storagePath), 'community attachment', id);
      return { ...attachmentView(found), content: bytes.toString('base64') };
    },
  };
}
export type AttachmentRules = ReturnType<typeof attachmentRules>;
