/**
 * The conversation rebuilt from its transcript, for a session brought back after a restart (or after idling out
 * of memory): the messages the model gets again, turn by turn, and the events the studio shows. A transcript cut
 * short by a crash is made consistent: every tool call gets an answer — one saying a restart interrupted it — and a
 * turn left open is closed with an error. A crash leaves such gaps only at the end of the file, so the answers for
 * those are appended to the transcript too, and the next restore finds it whole.
 */
import path from 'node:path';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall as ToolCall,
} from 'openai/resources/chat/completions';
import { toolCallEvent } from './call-events.js';
import type { ChatEventOf } from './event-shapes.js';
import { readKeptImage } from './kept-images.js';
import { userWords } from './prompt.js';
import { modelImageUrl, OLDER_IMAGE_NOTE } from './result-images.js';
import { readTranscript, type TranscriptImage, type TranscriptLine, TranscriptWriter } from './transcript.js';

/** The studio's events as rebuilt: result images as the files kept beside the transcript. */
export type RestoredEvent = ChatEventOf<TranscriptImage>;

export interface RestoredConversation {
  /** The messages after the system prompt, one list per user turn. */
  readonly turns: ChatCompletionMessageParam[][];
  readonly events: RestoredEvent[];
  /** The transcript has its opening line (system prompt and model) already. */
  readonly opened: boolean;
  /** Lines appended to the transcript to answer what the crash left open. */
  readonly repairs: readonly TranscriptLine[];
  /** The transcript's last line was cut short and removed. */
  readonly cut: boolean;
}

const LOST_IMAGE_NOTE = '（这张图像已无法恢复：只剩上面工具结果里的文字说明）';

const INTERRUPTED_TURN = {
  code: 'interrupted',
  message: '服务重启，这一轮在进行中被中断了。已完成的调用都保留着；需要时请再发一次。',
} as const;

const interruptedCall = JSON.stringify({
  ok: false,
  error: {
    code: 'interrupted',
    message: '服务在这个调用进行时重启了，结果没有记录下来：它可能没有执行，也可能已经生效。',
    hint: '看最新的【会话状态】判断它是否已生效，需要时再调用一次。',
  },
});

type Line = Record<string, unknown>;

function isObject(value: unknown): value is Line {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolCallsOf(raw: unknown): ToolCall[] | null {
  if (!Array.isArray(raw)) return null;
  const calls: ToolCall[] = [];
  for (const c of raw) {
    const fn = isObject(c) && isObject(c.function) ? c.function : null;
    if (!fn || typeof c.id !== 'string' || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      return null;
    }
    // A service's own fields of the call (Gemini's thought signature) go back with it, as they were sent.
    const { id, type: _type, function: _fn, ...extra } = c;
    calls.push({ ...extra, id, type: 'function', function: { name: fn.name, arguments: fn.arguments } });
  }
  return calls;
}

function resultOf(content: string): { ok: boolean; result: unknown } {
  try {
    const result: unknown = JSON.parse(content);
    return { ok: isObject(result) && result.ok === true, result };
  } catch {
    return { ok: false, result: { ok: false, error: { code: 'internal', message: content } } };
  }
}

/** An image part of a rebuilt message, to be filled from its file or replaced by a note. */
interface ImageSlot {
  readonly parts: ChatCompletionContentPart[];
  readonly index: number;
  readonly file: string | null;
}

/**
 * The conversation in a transcript's lines. Pure: image parts are left as slots for `restoreConversation` to fill,
 * and what had to be answered at the end of the lines is returned as lines to append.
 */
export function rebuildConversation(
  lines: readonly unknown[],
  opts: { readonly vision: boolean },
): Omit<RestoredConversation, 'cut'> & { readonly images: readonly ImageSlot[] } {
  const turns: ChatCompletionMessageParam[][] = [];
  const events: RestoredEvent[] = [];
  const images: ImageSlot[] = [];
  let opened = false;
  /** The calls of the latest assistant message still without an answer, in order. */
  let pending: ToolCall[] = [];
  let turnOpen = false;

  const current = () => turns[turns.length - 1];
  const answer = (call: ToolCall, content: string, kept: readonly TranscriptImage[]) => {
    current()?.push({ role: 'tool', tool_call_id: call.id, content });
    const { ok, result } = resultOf(content);
    // A call skipped after a cancel, or beyond the calls one message may run, never showed as a card.
    const code = (result as { error?: { code?: unknown } })?.error?.code;
    if (code === 'cancelled' || code === 'too_many_calls') return;
    events.push(toolCallEvent(call.id, call.function.name, call.function.arguments), {
      type: 'tool_result',
      id: call.id,
      name: call.function.name,
      ok,
      result,
      ...(kept.length ? { images: kept } : {}),
    });
  };
  /** Answers the calls left open; returns the answers as transcript lines. */
  const answerPending = (): TranscriptLine[] => {
    const answered = pending.map((call) => {
      answer(call, interruptedCall, []);
      return {
        role: 'tool' as const,
        tool_call_id: call.id,
        name: call.function.name,
        content: interruptedCall,
        not_run: true as const,
      };
    });
    pending = [];
    return answered;
  };
  const closeTurn = (): TranscriptLine[] => {
    if (!turnOpen) return [];
    turnOpen = false;
    events.push({ type: 'error', ...INTERRUPTED_TURN });
    return [{ event: 'error', ...INTERRUPTED_TURN }];
  };

  for (const line of lines) {
    if (!isObject(line)) continue;
    if (line.event === 'done' || line.event === 'error') {
      answerPending();
      if (!turnOpen) continue;
      turnOpen = false;
      events.push(
        line.event === 'done'
          ? { type: 'done', steps: typeof line.steps === 'number' ? line.steps : 0 }
          : { type: 'error', code: String(line.code), message: String(line.message) },
      );
      continue;
    }
    switch (line.role) {
      case 'system':
        opened = true;
        break;
      case 'user':
        if (typeof line.content === 'string') {
          answerPending();
          closeTurn();
          turns.push([{ role: 'user', content: line.content }]);
          events.push({
            type: 'user',
            text: userWords(line.content),
            ...(typeof line.at === 'number' && Number.isFinite(line.at) ? { at: line.at } : {}),
          });
          turnOpen = true;
        } else if (Array.isArray(line.content) && current() && pending.length === 0 && opts.vision) {
          // The images a vision model was shown after the tool answers.
          const parts: ChatCompletionContentPart[] = [];
          for (const p of line.content as unknown[]) {
            if (!isObject(p)) continue;
            if (p.type === 'text' && typeof p.text === 'string') parts.push({ type: 'text', text: p.text });
            else if (p.type === 'image_url') {
              images.push({ parts, index: parts.length, file: typeof p.file === 'string' ? p.file : null });
              parts.push({ type: 'image_url', image_url: { url: '' } });
            }
          }
          current()!.push({ role: 'user', content: parts });
        }
        break;
      case 'assistant': {
        if (!current()) break;
        answerPending();
        const text = typeof line.content === 'string' ? line.content : '';
        if (text !== '') events.push({ type: 'assistant', text });
        const calls = line.tool_calls === undefined ? [] : toolCallsOf(line.tool_calls);
        if (calls === null) break;
        current()!.push({
          role: 'assistant',
          content: text === '' ? null : text,
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(typeof line.reasoning_content === 'string' && line.reasoning_content !== ''
            ? { reasoning_content: line.reasoning_content }
            : {}),
          ...(Array.isArray(line.reasoning_details) && line.reasoning_details.length
            ? { reasoning_details: line.reasoning_details }
            : {}),
        });
        pending = calls;
        break;
      }
      case 'tool': {
        const at = pending.findIndex((c) => c.id === line.tool_call_id);
        // An answer to no open call would be an orphan the API refuses.
        if (at < 0 || typeof line.content !== 'string') break;
        // Answers come in the calls' order; any skipped before this one were lost.
        for (const skipped of pending.slice(0, at)) answer(skipped, interruptedCall, []);
        const kept = Array.isArray(line.images) ? (line.images as TranscriptImage[]) : [];
        answer(pending[at]!, line.content, kept);
        pending = pending.slice(at + 1);
        break;
      }
    }
  }
  const repairs = [...answerPending(), ...closeTurn()];
  return { turns, events, opened, repairs, images };
}

/** Fills the newest image slots (at most `sent`) from their files; the others become a note saying why. */
async function fillImages(dir: string, slots: readonly ImageSlot[], sent: number): Promise<void> {
  let filled = 0;
  for (let i = slots.length - 1; i >= 0; i--) {
    const slot = slots[i]!;
    let url: string | null = null;
    if (filled < sent && slot.file) {
      const image = await readKeptImage(dir, { file: slot.file, mime: 'image/png' });
      url = image ? await modelImageUrl(image).catch(() => null) : null;
      if (url) filled++;
    }
    slot.parts[slot.index] = url
      ? { type: 'image_url', image_url: { url } }
      : { type: 'text', text: filled < sent ? LOST_IMAGE_NOTE : OLDER_IMAGE_NOTE };
  }
}

/**
 * The conversation of the transcript at `file` (null when there is none yet), its end repaired on disk. Images
 * come back for a vision model as far as their files are kept, at most `imagesSent` of the newest.
 */
export async function restoreConversation(
  file: string,
  opts: { readonly vision: boolean; readonly imagesSent: number; readonly onError: (err: unknown) => void },
): Promise<RestoredConversation | null> {
  const read = await readTranscript(file);
  if (!read) return null;
  const { images, ...rebuilt } = rebuildConversation(read.lines, opts);
  await fillImages(path.dirname(file), images, opts.imagesSent);
  if (rebuilt.repairs.length) await new TranscriptWriter(file, opts.onError).write(rebuilt.repairs);
  return { ...rebuilt, cut: read.cut };
}
