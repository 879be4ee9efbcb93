/**
 * One agent conversation per session, opened on the session's first chat request and cancelled when the session
 * closes. A session brought back after a restart (or after idling out of memory) has its conversation rebuilt
 * from its transcript on that first request: the model gets the earlier turns again and the studio shows them.
 * The events of each turn are kept as sent, settled (no text deltas or stages; images as links to the session's
 * image shelf), so a studio that reloads shows the same conversation as one that was open all along.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ModelConfig } from '../agent/config.js';
import { type ChatWrite, CONTEXT_IMAGE_LIMIT, Conversation } from '../agent/conversation.js';
import type { ChatEvent } from '../agent/events.js';
import { keptImageFiles, readKeptImage } from '../agent/kept-images.js';
import { type RestoredEvent, restoreConversation } from '../agent/restore.js';
import { TRANSCRIPT_FILE } from '../agent/transcript.js';
import { EditorError } from '../engine/errors.js';
import type { SessionEntry } from '../service/sessions.js';
import type { ImageOut } from '../tools/types.js';
import { linkImages } from './images.js';

/** What a turn says when the session's earlier conversation cannot be read back. */
export const RESTORE_FAILED_MESSAGE =
  '无法读取这个会话之前的对话记录，本轮没有开始，什么也没有改变。请稍后再发一次；问题持续时请查看服务日志。';

/** Events kept per session for `GET /chat`; the oldest go first. */
const MAX_KEPT_EVENTS = 5000;

/**
 * Bytes (of their JSON) the events kept for one session may take. They live on the thread every session's
 * requests share, counted in no pool: without a bound, a long conversation of large results (a layer tree of
 * thousands of layers, a model's long answers) would take memory from all of them.
 */
export const MAX_KEPT_EVENT_BYTES = 16 * 1024 * 1024;

export type SentEvent = Record<string, unknown> & { readonly type: string };

/** What clearing a conversation removed, and the kept images it left because a document or the photo uses them. */
export interface ClearedChat {
  readonly removedFiles: number;
  readonly freedBytes: number;
  readonly kept: readonly string[];
}

/** How a chat write the session's disk quota refuses is told: what it was for, and what it left as it was. */
const REFUSED_CHAT_WRITE: Readonly<Record<ChatWrite, { readonly what: string; readonly outcome: string }>> = {
  message: {
    what: '把这条消息记入对话记录',
    outcome: '本轮没有开始，对话记录和文档都保持不变',
  },
  reply: {
    what: '记下模型的回复',
    outcome: '模型要求的调用没有执行，本轮已停止；之前完成的调用都保留着',
  },
  images: {
    what: '保存结果图像到对话记录',
    outcome: '图像没有保存（重新打开会话后不再显示），本轮已停止；已完成的调用都保留着',
  },
};

interface Room {
  /** Null when no model is configured: the conversation can be read, not continued. */
  readonly conversation: Conversation | null;
  readonly events: SentEvent[];
  /** The size of each kept event's JSON, and their sum. */
  readonly sizes: number[];
  bytes: number;
}

/** Keeps `event` in the room, dropping the oldest beyond the count and the bytes allowed (never the newest). */
function keep(room: Room, event: SentEvent, maxBytes: number): void {
  const size = JSON.stringify(event).length;
  room.events.push(event);
  room.sizes.push(size);
  room.bytes += size;
  let drop = Math.max(0, room.events.length - MAX_KEPT_EVENTS);
  for (let i = 0; i < drop; i++) room.bytes -= room.sizes[i]!;
  while (room.bytes > maxBytes && drop < room.events.length - 1) room.bytes -= room.sizes[drop++]!;
  if (drop > 0) {
    room.events.splice(0, drop);
    room.sizes.splice(0, drop);
  }
}

interface Slot {
  readonly ready: Promise<Room>;
  /** Once rebuilt, for the questions that cannot wait (is a turn running? cancel it). */
  room: Room | null;
}

/** Events a reloaded page needs no more than the settled ones after them. */
function passing(event: SentEvent): boolean {
  return event.type === 'assistant_delta' || event.type === 'progress';
}

export class ChatRooms {
  private readonly rooms = new WeakMap<SessionEntry, Slot>();
  /** Sessions whose conversation a request has taken for a turn, from its acceptance to its end. */
  private readonly claimed = new WeakSet<SessionEntry>();
  /** The tab whose request took the turn, where it said (its own turn is not another tab's to show). */
  private readonly turnTabs = new WeakMap<SessionEntry, string>();
  /**
   * Claimed turns cancelled before their conversation started (the room was still being rebuilt from the
   * transcript): the turn ends as cancelled without asking the model anything.
   */
  private readonly cancelledEarly = new WeakSet<SessionEntry>();

  constructor(
    readonly model: ModelConfig | null,
    private readonly log: (err: unknown) => void,
    private readonly maxEventBytes = MAX_KEPT_EVENT_BYTES,
  ) {}

  /** The session's room, rebuilt from its transcript the first time it is asked for. */
  private roomOf(entry: SessionEntry): Promise<Room> {
    const known = this.rooms.get(entry);
    if (known) return known.ready;
    const slot: Slot = { ready: this.open(entry), room: null };
    this.rooms.set(entry, slot);
    slot.ready.then(
      (room) => {
        slot.room = room;
      },
      // A failed rebuild is tried again by the next request.
      () => this.rooms.delete(entry),
    );
    return slot.ready;
  }

  private async open(entry: SessionEntry): Promise<Room> {
    const transcript = path.join(entry.dir, TRANSCRIPT_FILE);
    const restored = await restoreConversation(transcript, {
      vision: this.model?.vision ?? false,
      imagesSent: CONTEXT_IMAGE_LIMIT,
      onError: this.log,
    });
    const kept: Room = { conversation: null, events: [], sizes: [], bytes: 0 };
    for (const event of (restored?.events ?? []).slice(-MAX_KEPT_EVENTS)) {
      keep(kept, await this.relinked(entry, event), this.maxEventBytes);
    }
    if (!this.model) return kept;
    const conversation = new Conversation({
      session: entry.session,
      config: this.model,
      transcript,
      keepImages: true,
      ...(restored ? { restored } : {}),
      onInternalError: this.log,
      // The record of the conversation is the session's own files: it counts in its disk quota like them.
      room: (bytes, what) =>
        entry.disk.checkWrite(bytes, REFUSED_CHAT_WRITE[what].what, REFUSED_CHAT_WRITE[what].outcome),
    });
    entry.closers.push(() => conversation.cancel());
    return { ...kept, conversation };
  }

  running(entry: SessionEntry): boolean {
    return this.claimed.has(entry) || (this.rooms.get(entry)?.room?.conversation?.running ?? false);
  }

  /**
   * Whether a turn runs that `tab` did not start: what that tab shows as running. Its own turn it follows on its
   * own request, whose end it sees; told as another's, it could be told so after that end, and show it forever.
   */
  runningFor(entry: SessionEntry, tab: string | null): boolean {
    return this.running(entry) && (tab === null || this.turnTabs.get(entry) !== tab);
  }

  /**
   * Takes the session's conversation for one turn, at once (a room may still be being rebuilt from its
   * transcript, when its conversation cannot say it is busy): false when a turn already holds it, so the
   * request is refused before any stream starts. Given back by `release`, which the turn's end calls too.
   */
  claim(entry: SessionEntry, tab: string | null = null): boolean {
    if (this.running(entry)) return false;
    this.claimed.add(entry);
    if (tab !== null) this.turnTabs.set(entry, tab);
    return true;
  }

  release(entry: SessionEntry): void {
    this.claimed.delete(entry);
    this.turnTabs.delete(entry);
    this.cancelledEarly.delete(entry);
  }

  /** Runs one user turn, sending each event (images as links) as it happens. */
  async turn(entry: SessionEntry, message: string, send: (event: SentEvent) => void): Promise<void> {
    if (!this.model) throw new Error('no model is configured');
    try {
      let room: Room;
      try {
        room = await this.roomOf(entry);
      } catch (err) {
        // The detail (a file's path, the system's error) is for the server's log; the designer is told what it
        // means for them. The next request tries to rebuild the room again.
        this.log(err);
        send({ type: 'error', code: 'internal', message: RESTORE_FAILED_MESSAGE });
        return;
      }
      if (this.cancelledEarly.has(entry)) {
        send({ type: 'error', code: 'cancelled', message: '已取消本轮：它还没有开始，什么也没有改变。' });
        return;
      }
      await room.conversation!.turn(message, (event) => {
        const sent = this.linked(entry, event);
        if (!passing(sent)) keep(room, sent, this.maxEventBytes);
        send(sent);
      });
    } finally {
      this.release(entry);
    }
  }

  /**
   * Cancels the session's running turn; false when none runs. A turn accepted but not started yet (its room is
   * still being rebuilt) is cancelled too: it ends without running.
   */
  cancel(entry: SessionEntry): boolean {
    const conversation = this.rooms.get(entry)?.room?.conversation;
    if (conversation?.running) return conversation.cancel();
    if (!this.claimed.has(entry)) return false;
    this.cancelledEarly.add(entry);
    return true;
  }

  /**
   * Empties the session's conversation, to give its room back under the disk quota: the transcript and the
   * images kept beside it go, removed as the files pane removes a file (one an open document or the garment
   * photo uses stays), and the next turn starts a new conversation, as a restart would find it. The documents,
   * the other files and the journal that restores them are not touched. Null, changing nothing, while a turn
   * runs or is about to.
   */
  async clear(entry: SessionEntry): Promise<ClearedChat | null> {
    if (!this.claim(entry)) return null;
    let removedFiles = 0;
    let freedBytes = 0;
    const kept: string[] = [];
    try {
      // A rebuild under way reads the transcript: it ends first, and its room goes with the record.
      await this.rooms.get(entry)?.ready.catch(() => undefined);
      const transcript = await lstat(path.join(entry.dir, TRANSCRIPT_FILE)).catch(() => null);
      const record = [
        ...(transcript?.isFile() ? [{ path: TRANSCRIPT_FILE, bytes: transcript.size }] : []),
        ...(await keptImageFiles(entry.dir)),
      ];
      for (const file of record) {
        try {
          await entry.host.removeFile(file.path);
          removedFiles++;
          freedBytes += file.bytes;
        } catch (err) {
          if (!(err instanceof EditorError)) throw err;
          if (err.code === 'conflict') kept.push(file.path);
          else if (err.code !== 'not_found') throw err;
        }
      }
      return { removedFiles, freedBytes, kept };
    } finally {
      // Rebuilt from what is on disk by the next request, whatever of the record went.
      this.rooms.delete(entry);
      this.release(entry);
    }
  }

  /** The conversation so far, as a reloaded studio shows it. */
  async events(entry: SessionEntry): Promise<readonly SentEvent[]> {
    return (await this.roomOf(entry)).events;
  }

  private linked(entry: SessionEntry, event: ChatEvent): SentEvent {
    if (event.type !== 'tool_result' || !event.images?.length) return event as SentEvent;
    return { ...event, images: linkImages(event.images, entry) };
  }

  /** A rebuilt event with its kept images back on the session's shelf; an image no longer kept is left out. */
  private async relinked(entry: SessionEntry, event: RestoredEvent): Promise<SentEvent> {
    if (event.type !== 'tool_result' || !event.images?.length) return event as SentEvent;
    const images: ImageOut[] = [];
    for (const kept of event.images) {
      const image = await readKeptImage(entry.dir, kept);
      if (image) images.push(image);
    }
    const { images: _files, ...rest } = event;
    return images.length ? { ...rest, images: linkImages(images, entry) } : (rest as SentEvent);
  }
}
