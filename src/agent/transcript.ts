/**
 * The conversation as a JSONL transcript, one chat message per line as it was sent to the model (images left
 * out), plus one line where each turn ended. `atelier run` replays it without a model: every assistant message's
 * tool calls run in order — except those the loop never ran (refused by the guard or skipped after a cancel),
 * listed in its `not_run` — and every other line is skipped. So a bug report is a transcript.
 */
import { appendFile } from 'node:fs/promises';

/** The transcript's file name in a session's folder (`atelier chat` writes it in the workspace). */
export const TRANSCRIPT_FILE = 'chat.jsonl';

export interface TranscriptToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export type TranscriptLine =
  | { readonly role: 'system'; readonly content: string; readonly model: unknown }
  | { readonly role: 'user'; readonly content: string | readonly unknown[] }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly tool_calls?: readonly TranscriptToolCall[];
      /** Ids of calls answered without running them. */
      readonly not_run?: readonly string[];
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly name: string; readonly content: string }
  | { readonly event: 'done'; readonly steps: number }
  | { readonly event: 'error'; readonly code: string; readonly message: string };

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * The tool calls a line of an agent transcript replays: the assistant's calls that ran, in order, and none for
 * any other line of it. Null when the line is not part of an agent transcript.
 */
export function replayedCalls(line: unknown): readonly unknown[] | null {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) return null;
  const l = line as { role?: unknown; event?: unknown; tool_calls?: unknown; not_run?: unknown };
  if (typeof l.event === 'string' && !('call' in l) && !('name' in l)) return [];
  if (typeof l.role !== 'string' || !ROLES.has(l.role)) return null;
  if (l.role !== 'assistant' || !Array.isArray(l.tool_calls)) return [];
  const skipped = new Set(Array.isArray(l.not_run) ? l.not_run : []);
  return l.tool_calls.filter((c) => !skipped.has((c as { id?: unknown })?.id));
}

/** Appends lines in order; a write that fails is reported, never thrown into the conversation. */
export class TranscriptWriter {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  write(lines: readonly TranscriptLine[]): Promise<void> {
    if (lines.length === 0) return this.queue;
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    this.queue = this.queue.then(() => appendFile(this.path, text).catch(this.onError));
    return this.queue;
  }

  /** Resolves when every line written so far is on disk. */
  flushed(): Promise<void> {
    return this.queue;
  }
}
