/**
 * The conversation as a JSONL transcript, one chat message per line as it was sent to the model (image bytes left
 * out: they are files beside it), plus one line where each turn ended. Lines are written as things happen — an
 * assistant's tool calls before they run, each tool answer when its call ends — so a transcript cut short by a
 * crash still says which calls ran. `atelier run` replays it without a model: each call whose answer says it ran,
 * in order, and every other line is skipped. So a bug report is a transcript.
 */
import { open } from 'node:fs/promises';
import type { StartedAt } from './event-shapes.js';

/** The transcript's file name in a session's folder (`atelier chat` writes it in the workspace). */
export const TRANSCRIPT_FILE = 'chat.jsonl';

/**
 * The folder beside the transcript where result images are kept (kept-images.ts); `atelier chat` writes the images
 * it prints into it too.
 */
export const KEPT_IMAGES = 'chat-images';

export interface TranscriptToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
  /** A service's own fields of the call (Gemini's `extra_content`), sent back with it. */
  readonly [extra: string]: unknown;
}

export type TranscriptLine =
  | { readonly role: 'system'; readonly content: string; readonly model: unknown }
  /**
   * The user's turn (its content ends with the state summary), or the images shown to a vision model. A turn's
   * line says when it started (`at`, not sent to the model); older transcripts lack it.
   */
  | {
      readonly role: 'user';
      readonly content: string | readonly TranscriptPart[];
      readonly at?: StartedAt;
    }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly tool_calls?: readonly TranscriptToolCall[];
      /** The model's reasoning, kept where the service wants it back (turns with tool calls). */
      readonly reasoning_content?: string;
      /** OpenRouter's reasoning blocks, kept as they came where it wants them back (turns with tool calls). */
      readonly reasoning_details?: readonly Readonly<Record<string, unknown>>[];
      /** Ids of calls answered without running them (transcripts written before answers carried `not_run`). */
      readonly not_run?: readonly string[];
    }
  | {
      readonly role: 'tool';
      readonly tool_call_id: string;
      readonly name: string;
      readonly content: string;
      /** The call was answered without running (refused, cancelled, interrupted). */
      readonly not_run?: true;
      /** The result's images, kept as files beside the transcript. */
      readonly images?: readonly TranscriptImage[];
    }
  | { readonly event: 'done'; readonly steps: number }
  | { readonly event: 'error'; readonly code: string; readonly message: string };

/** A result image kept beside the transcript: `file` is relative to the transcript's folder. */
export interface TranscriptImage {
  readonly file: string;
  readonly mime: 'image/png' | 'image/jpeg';
  readonly caption?: string;
  readonly caption_en?: string;
  /** The picture with its words in English (ImageOut.base64En), kept beside it, relative as `file`. */
  readonly file_en?: string;
}

/** A part of the message that showed images to a vision model; an image part names its file, not its bytes. */
export type TranscriptPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string }; readonly file?: string };

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

type Line = {
  role?: unknown;
  event?: unknown;
  tool_calls?: unknown;
  not_run?: unknown;
  tool_call_id?: unknown;
};

/**
 * Reads an agent transcript for replay, line by line: an assistant line announces its calls, and each call is
 * replayed when its tool answer shows it ran (a call whose answer never came was cut short: it is not replayed).
 */
export class TranscriptReplay {
  /** The latest assistant line's calls still to be answered, in order (ids may repeat within a line). */
  private pending: { readonly id: unknown; readonly call: unknown }[] = [];

  /** The calls this line replays, in order; null when the line is not part of an agent transcript. */
  callsOf(line: unknown): readonly unknown[] | null {
    if (typeof line !== 'object' || line === null || Array.isArray(line)) return null;
    const l = line as Line;
    if (typeof l.event === 'string' && !('call' in l) && !('name' in l)) return [];
    if (typeof l.role !== 'string' || !ROLES.has(l.role)) return null;
    if (l.role === 'assistant' && Array.isArray(l.tool_calls)) {
      const skipped = new Set(Array.isArray(l.not_run) ? l.not_run : []);
      this.pending = (l.tool_calls as unknown[])
        .map((call) => ({ id: (call as { id?: unknown })?.id, call }))
        .filter((p) => !skipped.has(p.id));
      return [];
    }
    if (l.role !== 'tool') return [];
    // Answers come in the calls' order: an id two calls share answers the first still open.
    const at = this.pending.findIndex((p) => p.id === l.tool_call_id);
    if (at < 0) return [];
    const { call } = this.pending[at]!;
    this.pending.splice(at, 1);
    return l.not_run === true ? [] : [call];
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The transcript's lines, oldest first. A last line cut short by a crash is cut off the file too (the next line
 * appended must start on a line of its own); `cut` says so. Any other line that is not JSON is skipped and counted.
 */
export async function readTranscript(
  file: string,
): Promise<{ lines: unknown[]; cut: boolean; unreadable: number } | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    let bytes = await handle.readFile();
    let cut = false;
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) {
      if (parses(bytes.subarray(end).toString('utf8'))) {
        // Whole but for its newline.
        await handle.write('\n', bytes.length);
        bytes = Buffer.concat([bytes, Buffer.from('\n')]);
      } else {
        await handle.truncate(end);
        bytes = bytes.subarray(0, end);
        cut = true;
      }
    }
    const lines: unknown[] = [];
    let unreadable = 0;
    for (const text of bytes.toString('utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text));
      } catch {
        unreadable++;
      }
    }
    return { lines, cut, unreadable };
  } finally {
    await handle.close();
  }
}

/**
 * Appends lines in order, each whole (`appendLines`: a write cut short by a full disk is taken back, so the next
 * line does not continue it); a write that fails is reported, never thrown into the conversation.
 */
export class TranscriptWriter {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  write(lines: readonly TranscriptLine[]): Promise<void> {
    if (lines.length === 0) return this.queue;
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    this.queue = this.queue.then(() => appendWhole(this.path, text).catch(this.onError));
    return this.queue;
  }

  /** Resolves when every line written so far is on disk. */
  flushed(): Promise<void> {
    return this.queue;
  }
}

/**
 * The engine's whole-line append, loaded at the first write: `atelier run` reads this module to replay a
 * transcript, and its command line stays free of the engine.
 */
async function appendWhole(file: string, text: string): Promise<void> {
  const { appendLines, PRIVATE_FILE_MODE } = await import('../engine/workspace.js');
  // A conversation is its designer's own, whoever else uses the machine.
  await appendLines(file, text, PRIVATE_FILE_MODE);
}
