/**
 * One agent conversation per session, opened on its first chat message and cancelled when the session closes.
 * The events a turn streamed are kept as sent (images as links to the session's image shelf), so a studio
 * that reloads shows the same conversation.
 */
import path from 'node:path';
import type { ModelConfig } from '../agent/config.js';
import { Conversation } from '../agent/conversation.js';
import type { ChatEvent } from '../agent/events.js';
import { TRANSCRIPT_FILE } from '../agent/transcript.js';
import type { SessionEntry } from '../service/sessions.js';
import { linkImages } from './images.js';

/** Events kept per session for `GET /chat`; the oldest go first. */
const MAX_KEPT_EVENTS = 5000;

export type SentEvent = Record<string, unknown> & { readonly type: string };

interface Room {
  readonly conversation: Conversation;
  readonly events: SentEvent[];
}

export class ChatRooms {
  private readonly rooms = new WeakMap<SessionEntry, Room>();

  constructor(
    readonly model: ModelConfig | null,
    private readonly log: (err: unknown) => void,
  ) {}

  private roomOf(entry: SessionEntry, model: ModelConfig): Room {
    let room = this.rooms.get(entry);
    if (!room) {
      const conversation = new Conversation({
        session: entry.session,
        config: model,
        transcript: path.join(entry.dir, TRANSCRIPT_FILE),
        onInternalError: this.log,
      });
      room = { conversation, events: [] };
      this.rooms.set(entry, room);
      entry.closers.push(() => conversation.cancel());
    }
    return room;
  }

  running(entry: SessionEntry): boolean {
    return this.rooms.get(entry)?.conversation.running ?? false;
  }

  /** Runs one user turn, sending each event (images as links) as it happens. */
  async turn(entry: SessionEntry, message: string, send: (event: SentEvent) => void): Promise<void> {
    if (!this.model) throw new Error('no model is configured');
    const room = this.roomOf(entry, this.model);
    await room.conversation.turn(message, (event) => {
      const sent = this.linked(entry, event);
      room.events.push(sent);
      if (room.events.length > MAX_KEPT_EVENTS) room.events.splice(0, room.events.length - MAX_KEPT_EVENTS);
      send(sent);
    });
  }

  cancel(entry: SessionEntry): boolean {
    return this.rooms.get(entry)?.conversation.cancel() ?? false;
  }

  events(entry: SessionEntry): readonly SentEvent[] {
    return this.rooms.get(entry)?.events ?? [];
  }

  private linked(entry: SessionEntry, event: ChatEvent): SentEvent {
    if (event.type !== 'tool_result' || !event.images?.length) return event as SentEvent;
    return { ...event, images: linkImages(event.images, entry) };
  }
}
