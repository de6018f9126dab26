/**
 * The mongodb driver's side of direct commands (docs/adr/0052).
 *
 * On an in-process connection (in-process.ts) the driver still serialised every command to BSON and
 * framed it, the in-memory stream carried the bytes a tick later, and the server parsed them back:
 * for the platform's small commands that was more CPU than running them. Here the driver's
 * `Connection.prototype.sendWire` (mongodb 7.x: prepareCommand builds the message, sendWire writes it
 * and yields the parsed replies, sendCommand around it does sessions, cluster time, errors and
 * command monitoring) is wrapped, once per process: when the connection's socket is an in-process
 * one that offers direct commands, the command is handed to the server as a copy (direct-command.ts)
 * and the reply's BSON comes back as the driver's own response type. Everything else keeps the
 * original: other connections, OP_QUERY (the handshake of old servers), exhaust and checksummed
 * messages, and any command whose values only BSON can encode.
 *
 * The reply stays BSON where the driver reads responses lazily from their bytes (cursor batches,
 * `MongoDBResponse`'s getters); its result documents must not share objects with the server's store.
 * One reply is handed over as an object (docs/adr/0077): a `find` run as a command (`db.command`,
 * kit's one-command reads), whose reply the driver only reads whole (`toObject`) with the default
 * BSON options. The object is the copy the BSON round trip would give (direct-command.ts); the
 * response keeps the reply's other fields as BSON for the driver's own reads (ok, cluster time).
 */
import type { Doc } from './values';
import { commandBody } from './direct-command';
import { DIRECT_COMMANDS, type DirectCommands, type DirectReply } from './in-process';

interface OpMsgRequestLike {
  command: Doc;
  moreToCome: boolean;
  exhaustAllowed: boolean;
  checksumPresent: boolean;
  ignoreUndefined: boolean;
}
interface ConnectionLike {
  socket?: { [DIRECT_COMMANDS]?: DirectCommands };
  throwIfAborted(): void;
}
type SendWire = (this: ConnectionLike, message: unknown, options: unknown, responseType?: ResponseType) => AsyncGenerator<unknown>;
interface ResponseType {
  make(bson: Uint8Array): unknown;
}

let installed = false;

/**
 * The BSON options under which a reply's BSON round trip is direct-command.ts's copy: the driver's
 * defaults (promote longs and values, buffers as Binary, RegExps as RegExp, nothing raw).
 */
export function defaultReplyOptions(o: Record<string, unknown>): boolean {
  const raw = o.fieldsAsRaw as Record<string, unknown> | undefined;
  return (
    o.raw !== true &&
    o.promoteLongs !== false &&
    o.promoteValues !== false &&
    o.promoteBuffers !== true &&
    o.bsonRegExp !== true &&
    o.useBigInt64 !== true &&
    o.enableUtf8Validation !== false &&
    (raw === undefined || Object.keys(raw).length === 0)
  );
}

/**
 * Wraps the driver's sendWire (once per process; it passes through wherever there is no in-process
 * server). Returns false, and leaves the wire to every command, when this process has no mongodb
 * 7 driver to wrap.
 */
export function installDriverDirect(log?: (msg: string) => void): boolean {
  if (installed) return true;
  let Connection: { prototype: { sendWire: SendWire } };
  let OpMsgRequest: new (...args: never[]) => OpMsgRequestLike;
  let DocumentSequence: new (...args: never[]) => { documents: Doc[] };
  let MongoDBResponse: ResponseType & { empty: unknown; new (bson: Uint8Array): { toObject(options?: unknown): unknown } };
  try {
    /* eslint-disable @typescript-eslint/no-require-imports -- the driver's internals, not its public API */
    ({ Connection } = require('mongodb/lib/cmap/connection'));
    ({ OpMsgRequest, DocumentSequence } = require('mongodb/lib/cmap/commands'));
    ({ MongoDBResponse } = require('mongodb/lib/cmap/wire_protocol/responses'));
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch (e) {
    log?.(`in-process commands take the wire: no mongodb driver to hand them to (${(e as Error).message})`);
    return false;
  }
  const original = Connection.prototype.sendWire;
  if (typeof original !== 'function' || typeof MongoDBResponse?.make !== 'function') {
    log?.('in-process commands take the wire: this mongodb driver has no Connection.sendWire');
    return false;
  }

  /**
   * The command with each document sequence (inserts' `documents`, updates' and deletes' statements)
   * as the array of its documents, after the other fields: where the wire's parser puts them (wire.ts).
   */
  function withSequencesLast(command: Doc): Doc {
    let sequences: [string, Doc[]][] | null = null;
    for (const key in command) {
      const v = command[key];
      if (v instanceof DocumentSequence) (sequences ??= []).push([key, v.documents]);
    }
    if (!sequences) return command;
    const out: Doc = {};
    for (const key in command) if (!(command[key] instanceof DocumentSequence)) out[key] = command[key];
    for (const [key, documents] of sequences) out[key] = documents;
    return out;
  }

  /**
   * A reply handed over as an object: the driver's getters read its header's BSON; `toObject` gives
   * the object (a fresh copy after the first call, as each BSON parse is fresh).
   */
  class ObjectReply extends MongoDBResponse {
    private given = false;
    constructor(private readonly reply: DirectReply) {
      super(reply.header);
    }
    override toObject(options?: unknown): unknown {
      if (options && !defaultReplyOptions(options as Record<string, unknown>)) throw new Error('a direct reply was read with BSON options other than the defaults');
      if (!this.given) {
        this.given = true;
        return this.reply.object;
      }
      return commandBody(this.reply.object, false);
    }
  }

  async function* direct(this: ConnectionLike, run: DirectCommands, body: Doc, message: OpMsgRequestLike, options: unknown, responseType?: ResponseType) {
    this.throwIfAborted();
    // Only a `find` read whole: a RunCommandOperation's response (db.command) is MongoDBResponse itself
    // and read through toObject; the driver's own finds ask for a CursorResponse and read its bytes.
    const asObject = responseType === MongoDBResponse && 'find' in body && Object.keys(body)[0] === 'find' && defaultReplyOptions((options ?? {}) as Record<string, unknown>);
    const bson = await run(body, message.moreToCome, asObject);
    if (bson === undefined) {
      // The connection closed meanwhile: the wire reports it as the driver expects (a network error).
      yield* original.call(this, message, options, responseType);
      return;
    }
    if (bson === null) {
      yield MongoDBResponse.empty;
      return;
    }
    this.throwIfAborted();
    if (!(bson instanceof Uint8Array)) {
      yield new ObjectReply(bson);
      return;
    }
    yield (responseType ?? MongoDBResponse).make(bson);
  }

  Connection.prototype.sendWire = function sendWire(this: ConnectionLike, message: unknown, options: unknown, responseType?: ResponseType) {
    const run = this.socket?.[DIRECT_COMMANDS];
    if (run && message instanceof OpMsgRequest && !message.exhaustAllowed && !message.checksumPresent) {
      const body = commandBody(withSequencesLast(message.command), message.ignoreUndefined);
      if (body) return direct.call(this, run, body, message, options, responseType);
    }
    return original.call(this, message, options, responseType);
  } as SendWire;
  installed = true;
  return true;
}
