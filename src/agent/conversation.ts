/**
 * The agent loop: one conversation with an OpenAI-compatible chat model over one session. A user turn sends the
 * conversation with the registry's tools, runs the assistant's tool calls in their listed order through the
 * session, answers each with a tool message, and asks again until the model answers in words — bounded by
 * `maxSteps` requests, guarded against the garment identify ↔ preview loop, cancellable between any two steps.
 * Whatever ends a turn, the conversation stays one the next request can carry: every tool call is answered.
 * Each request carries as many of the latest turns as the context budget allows; the transcript keeps them all,
 * and a conversation rebuilt from it (restore.ts) goes on where it stopped.
 */
import path from 'node:path';
import type OpenAI from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { SessionHandle } from '../calls/handle.js';
import { notOfferedResult, registryName, withOfferedAdvice } from '../calls/offered-tools.js';
import type { ToolResult } from '../calls/result.js';
import { toOpenAI } from '../registry/formats/index.js';
import { findTool, toolsOf } from '../registry/index.js';
import type { ImageOut } from '../tools/types.js';
import { toolCallEvent } from './call-events.js';
import { describeModel, type ModelConfig } from './config.js';
import { fitConversation, requestTokens } from './context-budget.js';
import { startedNow } from './event-shapes.js';
import type { ChatEvent } from './events.js';
import { keepImages } from './kept-images.js';
import {
  LoopGuard,
  type Refusal as LoopRefusal,
  REPEATED_FAILURE_LIMIT,
  RepeatedFailures,
} from './loop-guard.js';
import { createModelClient, requestAssistant, type ToolCallOut } from './model-client.js';
import { ModelError } from './model-errors.js';
import { systemPrompt, userContent, userWords } from './prompt.js';
import {
  describeImages,
  imageTitle,
  MODEL_IMAGE_MAX_SIDE,
  MODEL_IMAGES_PER_MESSAGE,
  type ModelImage,
  modelImage,
  OLDER_IMAGE_NOTE,
  toolMessageContent,
} from './result-images.js';
import {
  type TranscriptImage,
  type TranscriptLine,
  type TranscriptPart,
  TranscriptWriter,
} from './transcript.js';

/** Longest user message accepted, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;
/**
 * Tool calls one assistant message may run, as one HTTP request may (`POST /tool-calls`): a model that repeats a
 * call over and over in one answer stops here; the calls beyond are answered without running.
 */
export const MAX_CALLS_PER_MESSAGE = 100;
/** Images kept in the conversation sent to the model; older ones are replaced by a note (each costs ~1k tokens). */
export const CONTEXT_IMAGE_LIMIT = 4;

export interface ConversationOptions {
  readonly session: SessionHandle;
  readonly config: ModelConfig;
  /** Absolute path of the JSONL transcript to append to. */
  readonly transcript?: string;
  /** Tests may inject a client; otherwise one is made from the config. */
  readonly client?: OpenAI;
  /** Keep result images as files beside the transcript, so a restored conversation has them (the studio does). */
  readonly keepImages?: boolean;
  /** The conversation so far, rebuilt from the transcript after a restart. */
  readonly restored?: { readonly turns: readonly ChatCompletionMessageParam[][]; readonly opened: boolean };
  /** Called with failures that are bugs (a listener that throws, a transcript that cannot be written). */
  readonly onInternalError?: (err: unknown) => void;
  /**
   * The room the session's disk quota leaves (the service): throws, saying so in Chinese, when writing `bytes`
   * more for `what` would pass it. A refused message or reply ends the turn before it is written; refused images
   * are not kept and the turn stops once the calls that ran are answered (their answers and the turn's last
   * line, which the record needs to replay and restore it, are always written).
   */
  readonly room?: (bytes: number, what: ChatWrite) => Promise<void>;
}

/** What a turn writes beside the session's files: the user's message, the model's reply, result images. */
export type ChatWrite = 'message' | 'reply' | 'images';

/** A write the disk quota refused: the turn ends with its message. */
class RoomRefused {
  constructor(readonly message: string) {}
}

type Emit = (event: ChatEvent) => void;

interface StepOutcome {
  readonly toolMessages: ChatCompletionToolMessageParam[];
  readonly images: ModelImage[];
}

/** How a call was answered: the tool message's content, and what the transcript adds about it. */
interface Answer {
  readonly content: string;
  readonly notRun: boolean;
  readonly kept: readonly TranscriptImage[];
}

/** The line a request's system prompt ends with when older turns were left out of it. */
function omittedNote(turns: number): string {
  return `（为适应上下文长度，较早的 ${turns} 轮对话已省略；文档的当前状态以最新消息的【会话状态】为准。）`;
}

function cancelledResult() {
  return {
    ok: false,
    error: {
      code: 'cancelled',
      message: '用户取消了本轮，这个调用没有执行。',
      hint: '等待用户的下一条消息；需要时再调用。',
    },
  } as const;
}

/** A call not run because the session's disk quota had no room for the images of the step's earlier calls. */
function noRoomResult(refused: RoomRefused) {
  return {
    ok: false,
    error: {
      code: 'quota_exceeded',
      message: `${refused.message}。这个调用没有执行。`,
      hint: '删除会话里不再需要的文件后再继续。',
    },
  } as const;
}

function beyondLimitResult(count: number) {
  return {
    ok: false,
    error: {
      code: 'too_many_calls',
      message: `这条回复有 ${count} 个工具调用，一条回复最多执行 ${MAX_CALLS_PER_MESSAGE} 个：这个调用没有执行。`,
      hint: `先看前 ${MAX_CALLS_PER_MESSAGE} 个调用的结果，需要时分几次调用。`,
    },
  } as const;
}

export class Conversation {
  private readonly session: SessionHandle;
  private readonly config: ModelConfig;
  private readonly client: OpenAI;
  private readonly writer: TranscriptWriter | null;
  private readonly onInternalError: (err: unknown) => void;
  private readonly system: string;
  private readonly tools: ChatCompletionTool[];
  private readonly offered: ReadonlySet<string>;
  private readonly guard = new LoopGuard();
  private readonly repeats = new RepeatedFailures();
  /** Documents whose unsaved changes a close was refused for, by name, with the index of the turn it was in. */
  private readonly discardAsked = new Map<string, number>();
  /** The conversation after the system prompt, one list of messages per user turn. */
  private readonly turns: ChatCompletionMessageParam[][];
  /** The estimate of what every request carries besides the turns: system prompt, omission note, tools. */
  private readonly fixedTokens: number;
  /** Where result images are kept, or null. */
  private readonly imageDir: string | null;
  private controller: AbortController | null = null;
  private startedTranscript: boolean;
  private readonly room: ConversationOptions['room'];
  /** The running turn's message was refused for the disk quota: nothing of the turn is written, nor its end. */
  private unwritten = false;
  /** The refusal that stopped keeping this step's images: the rest of its calls do not run. */
  private refused: RoomRefused | null = null;

  constructor(opts: ConversationOptions) {
    this.session = opts.session;
    this.config = opts.config;
    this.client = opts.client ?? createModelClient(opts.config);
    this.onInternalError = opts.onInternalError ?? ((err) => console.error(err));
    this.writer = opts.transcript ? new TranscriptWriter(opts.transcript, this.onInternalError) : null;
    const offered = toolsOf(opts.config.tools);
    this.tools = toOpenAI(offered) as unknown as ChatCompletionTool[];
    this.offered = new Set(offered.map((t) => t.name));
    this.system = systemPrompt({ vision: opts.config.vision, tools: this.offered });
    this.turns = opts.restored ? opts.restored.turns.map((t) => [...t]) : [];
    this.startedTranscript = opts.restored?.opened ?? false;
    // The note counted at its longest, whether or not a request carries it.
    this.fixedTokens = requestTokens(
      [{ role: 'system', content: `${this.system}\n\n${omittedNote(Number.MAX_SAFE_INTEGER)}` }],
      this.tools,
    );
    this.imageDir = opts.keepImages && opts.transcript ? path.dirname(opts.transcript) : null;
    this.room = opts.room;
  }

  /**
   * Asks the quota for room to write `lines` (after the lines still queued are on disk, so that they count):
   * a refusal, or null when they fit.
   */
  private async roomFor(lines: readonly TranscriptLine[], what: ChatWrite): Promise<RoomRefused | null> {
    if (!this.room || !this.writer) return null;
    await this.writer.flushed();
    const bytes = lines.reduce((n, l) => n + Buffer.byteLength(`${JSON.stringify(l)}\n`), 0);
    try {
      await this.room(bytes, what);
      return null;
    } catch (err) {
      return new RoomRefused(err instanceof Error ? err.message : String(err));
    }
  }

  get running(): boolean {
    return this.controller !== null;
  }

  /** Cancels the running turn (it emits error code 'cancelled' at its end); false when nothing runs. */
  cancel(): boolean {
    if (!this.controller || this.controller.signal.aborted) return this.controller !== null;
    this.controller.abort();
    return true;
  }

  /** Runs one user turn: emits events as they happen; never rejects; ends with exactly one 'done' or 'error'. */
  async turn(text: string, emit: Emit): Promise<void> {
    const safeEmit: Emit = (event) => {
      try {
        emit(event);
      } catch (err) {
        this.onInternalError(err);
      }
    };
    if (this.controller) {
      safeEmit({ type: 'error', code: 'busy', message: '上一轮还在进行：请等它结束，或先取消。' });
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    this.unwritten = false;
    this.refused = null;
    try {
      const end = await this.runTurn(text, safeEmit, controller.signal).catch((err: unknown) => {
        this.onInternalError(err);
        return {
          type: 'error',
          code: 'internal',
          // The error's own text may name server files: it goes to onInternalError, not to the designer.
          message: '内部错误：本轮意外中止，详情已记入日志。已完成的调用都保留着。',
        } as const;
      });
      if (this.unwritten) {
        // Nothing of the turn was written: there is nothing to end.
      } else if (end.type === 'error') {
        this.writer?.write([{ event: 'error', code: end.code, message: end.message }]);
      } else {
        this.writer?.write([{ event: 'done', steps: end.steps }]);
      }
      await this.writer?.flushed();
      safeEmit(end);
    } finally {
      this.controller = null;
    }
  }

  private async runTurn(
    text: string,
    emit: Emit,
    signal: AbortSignal,
  ): Promise<Extract<ChatEvent, { type: 'done' | 'error' }>> {
    const words = text.trim();
    if (words === '')
      return { type: 'error', code: 'invalid_message', message: '消息是空的：请写下想做的事。' };
    if (words.length > MAX_MESSAGE_CHARS) {
      return {
        type: 'error',
        code: 'invalid_message',
        message: `消息太长：最多 ${MAX_MESSAGE_CHARS} 个字符，收到 ${words.length} 个。请分几条发送。`,
      };
    }
    const at = startedNow();
    emit({ type: 'user', text: words, at });
    const user: ChatCompletionUserMessageParam = {
      role: 'user',
      content: userContent(words, await this.session.snapshot(), this.offered),
    };
    const turn: ChatCompletionMessageParam[] = [user];
    const opening: TranscriptLine[] = [];
    if (!this.startedTranscript) {
      opening.push({ role: 'system', content: this.system, model: describeModel(this.config) });
    }
    const first: TranscriptLine[] = [...opening, { role: 'user', content: user.content as string, at }];
    const refusal = await this.roomFor(first, 'message');
    if (refusal) {
      this.unwritten = true;
      return { type: 'error', code: 'quota_exceeded', message: refusal.message };
    }
    this.startedTranscript = true;
    this.turns.push(turn);
    this.writer?.write(first);
    this.guard.reset(this.session.garmentPhoto);
    this.repeats.reset();

    let steps = 0;
    for (;;) {
      if (signal.aborted)
        return { type: 'error', code: 'cancelled', message: '已取消本轮。已完成的调用都保留着。' };
      if (steps >= this.config.maxSteps) {
        return {
          type: 'error',
          code: 'max_steps',
          message: `本轮已向模型请求 ${steps} 次，达到上限（ATELIER_MODEL_MAX_STEPS=${this.config.maxSteps}），已停止。已完成的调用都保留着；发送“继续”可以接着做。`,
        };
      }
      steps++;
      const messages = this.contextMessages();
      if (!messages.ok) {
        return {
          type: 'error',
          code: 'context_full',
          message: `本轮的内容（消息、工具调用和结果）约 ${messages.tokens} tokens，加上工具说明和系统提示超出了上下文上限（ATELIER_MODEL_CONTEXT_TOKENS=${this.config.contextTokens}），缩减后仍放不下，没有发送给模型。已完成的调用都保留着。请把消息写短些或分几条发送；模型的上下文窗口更大时，可以调高 ATELIER_MODEL_CONTEXT_TOKENS。`,
        };
      }
      let reply: Awaited<ReturnType<typeof requestAssistant>>;
      try {
        reply = await requestAssistant({
          client: this.client,
          config: this.config,
          messages: messages.messages,
          tools: this.tools,
          signal,
          onDelta: (delta) => emit({ type: 'assistant_delta', text: delta }),
        });
      } catch (err) {
        if (!(err instanceof ModelError)) throw err;
        if (err.code === 'cancelled') {
          return { type: 'error', code: 'cancelled', message: '已取消本轮。已完成的调用都保留着。' };
        }
        // A service that refuses images would refuse every later request that still carries them.
        if (
          err.code === 'model_rejected' &&
          this.forgetImages(0, '（图像未发送：模型服务拒绝了带图像的请求）')
        ) {
          return {
            type: 'error',
            code: err.code,
            message: `${err.message}对话中的图像已移除，下一条消息不再附带它们。`,
          };
        }
        return { type: 'error', code: err.code, message: err.message };
      }
      if (reply.text === '' && reply.toolCalls.length === 0) {
        return {
          type: 'error',
          code: 'model_bad_response',
          message: '模型返回了空回答（没有文字也没有工具调用）。请重试。',
        };
      }
      let text = reply.text;
      if (reply.cutAtLimit) {
        const note = `\n\n（回答达到了输出长度上限${this.config.maxOutputTokens === null ? '' : `（ATELIER_MODEL_MAX_OUTPUT_TOKENS=${this.config.maxOutputTokens}）`}，在这里被截断了。发送“继续”可以让模型接着说。）`;
        // Streamed text is shown as it comes (the CLI prints nothing more of it): the note comes the same way.
        if (this.config.stream) emit({ type: 'assistant_delta', text: note });
        text += note;
      } else if (reply.cutShort) {
        const note =
          '\n\n（模型服务的连接在回答中途断开了，这段回答可能不完整。发送“继续”可以让模型接着说。）';
        if (this.config.stream) emit({ type: 'assistant_delta', text: note });
        text += note;
      }
      if (text !== '') emit({ type: 'assistant', text });
      const calls = reply.toolCalls.map((c) => ({ ...c, name: registryName(c.name) }));
      const toolCalls = calls.map((c) => ({
        ...c.extra,
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      }));
      // DeepSeek in thinking mode refuses a history whose turns with tool calls lost their reasoning, and
      // OpenRouter's thinking models want their reasoning blocks back there; in a turn without any it is ignored
      // (older reasoners refused it there), so only those turns carry it.
      const toolTurn = toolCalls.length > 0 || turn.some(hasToolCalls);
      const reasoning = {
        ...(toolTurn && reply.reasoning !== '' ? { reasoning_content: reply.reasoning } : {}),
        ...(toolTurn && reply.reasoningDetails.length ? { reasoning_details: reply.reasoningDetails } : {}),
      };
      const assistant: ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: text === '' ? null : text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...reasoning,
      };
      // The transcript has the calls before they run and each answer as it comes, so a crash leaves a record of
      // what ran (restore.ts answers the rest).
      const replyLine: TranscriptLine = {
        role: 'assistant',
        content: assistant.content as string | null,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...reasoning,
      };
      const noRoom = await this.roomFor([replyLine], 'reply');
      if (noRoom) return { type: 'error', code: 'quota_exceeded', message: noRoom.message };
      this.writer?.write([replyLine]);
      if (toolCalls.length === 0) {
        turn.push(assistant);
        return { type: 'done', steps };
      }
      const outcome = await this.runCalls(calls, emit, signal);
      const imageMessage = this.imageMessage(outcome.images);
      // Pushed together, after every call is answered: the history never holds a call without its answer.
      turn.push(assistant, ...outcome.toolMessages, ...(imageMessage ? [imageMessage] : []));
      if (imageMessage) {
        this.forgetImages(CONTEXT_IMAGE_LIMIT, OLDER_IMAGE_NOTE);
        this.writer?.write([{ role: 'user', content: transcriptParts(imageMessage, outcome.images) }]);
      }
      if (this.refused) return { type: 'error', code: 'quota_exceeded', message: this.refused.message };
      const stuck = this.repeats.stuck;
      if (stuck) return { type: 'error', code: 'repeated_failure', message: stuckMessage(stuck) };
    }
  }

  private async runCalls(
    calls: readonly ToolCallOut[],
    emit: Emit,
    signal: AbortSignal,
  ): Promise<StepOutcome> {
    const outcome: StepOutcome = { toolMessages: [], images: [] };
    for (const [i, call] of calls.entries()) {
      let answer: Answer;
      if (signal.aborted) {
        answer = { content: JSON.stringify(cancelledResult()), notRun: true, kept: [] };
      } else if (this.refused) {
        answer = { content: JSON.stringify(noRoomResult(this.refused)), notRun: true, kept: [] };
      } else if (i >= MAX_CALLS_PER_MESSAGE) {
        answer = { content: JSON.stringify(beyondLimitResult(calls.length)), notRun: true, kept: [] };
      } else {
        emit(toolCallEvent(call.id, call.name, call.arguments));
        try {
          answer = await this.runCall(call, emit, outcome, signal);
        } catch (err) {
          this.onInternalError(err);
          const content = JSON.stringify({
            ok: false,
            error: { code: 'internal', message: '内部错误：结果无法读取。' },
          });
          answer = { content, notRun: false, kept: [] };
        }
      }
      outcome.toolMessages.push({ role: 'tool', tool_call_id: call.id, content: answer.content });
      this.writer?.write([
        {
          role: 'tool',
          tool_call_id: call.id,
          name: call.name,
          content: answer.content,
          ...(answer.notRun ? { not_run: true as const } : {}),
          ...(answer.kept.length ? { images: answer.kept } : {}),
        },
      ]);
    }
    return outcome;
  }

  /**
   * Runs (or refuses) one call, emits its result and returns how it was answered. Cancelling the turn cancels the
   * call too: it stops at its next stage and keeps nothing (a save that has begun writing finishes).
   */
  private async runCall(
    call: ToolCallOut,
    emit: Emit,
    outcome: StepOutcome,
    signal: AbortSignal,
  ): Promise<Answer> {
    const photo = () => this.session.garmentPhoto;
    let result: ToolResult | ReturnType<typeof notOfferedResult>;
    const repeated = this.repeats.check(call.name, call.arguments);
    // A name the model was not offered is answered here: the session would suggest any registry tool.
    const refusal =
      repeated ??
      (!this.offered.has(call.name)
        ? notOfferedResult(call.name, this.offered)
        : (this.guard.check(call.name, photo()) ?? (await this.unconfirmedDiscard(call))));
    if (refusal) {
      result = refusal;
    } else {
      result = await this.session.call(
        { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } },
        {
          signal,
          onProgress: (p) =>
            emit({
              type: 'progress',
              id: call.id,
              stage: p.stage,
              ...(p.fraction !== undefined ? { fraction: p.fraction } : {}),
            }),
        },
      );
      this.guard.record(call.name, result.ok, photo());
      result = withOfferedAdvice(result, this.offered);
    }
    if (!repeated) this.repeats.record(call.name, call.arguments, result.ok, failureText(result));
    const images = result.ok ? ((result as { images?: readonly ImageOut[] }).images ?? []) : [];
    const { images: _bytes, ...plain } = result as typeof result & { images?: unknown };
    const described = images.length ? await describeImages(images) : null;
    const shown = described ? { ...plain, images: described } : plain;
    const kept = await this.keep(images);
    emit({
      type: 'tool_result',
      id: call.id,
      name: call.name,
      ok: result.ok,
      result: shown,
      ...(images.length ? { images } : {}),
    });
    if (this.config.vision) {
      for (const [i, img] of images.entries()) {
        try {
          const sent = await modelImage(img);
          const caption = img.caption ?? described?.[i]?.caption ?? '';
          outcome.images.push({
            toolCallId: call.id,
            toolName: call.name,
            caption: [caption, sent.shrunk].filter(Boolean).join('，'),
            url: sent.url,
            ...(kept[i] ? { file: kept[i].file } : {}),
          });
        } catch (err) {
          this.onInternalError(err);
        }
      }
    }
    // A call cancelled with the turn kept nothing: replaying the transcript must skip it as one never run.
    const cancelled =
      !result.ok && (result.error.details as { cancelled?: unknown } | undefined)?.cancelled === true;
    return { content: toolMessageContent(plain, described), notRun: refusal !== null || cancelled, kept };
  }

  /**
   * A close that would discard a document's unsaved changes — which nothing can bring back, unlike every edit —
   * is refused until the designer has had a say: the model is told to ask, and the same close in a later turn
   * (after the designer's answer) runs. A model that took "关掉标题" (hide it) for closing the document, or tidied
   * up on its own, loses no work. Null when the close may run.
   */
  private async unconfirmedDiscard(call: ToolCallOut): Promise<LoopRefusal | null> {
    if (call.name !== 'close_document') return null;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch {
      // The session answers it as invalid JSON, without running it.
      return null;
    }
    if ((args as { save?: unknown } | null)?.save === true) return null;
    const doc = (await this.session.snapshot()).documents.find((d) => d.active);
    if (!doc?.unsaved_changes) return null;
    const now = this.turns.length - 1;
    const asked = this.discardAsked.get(doc.name);
    if (asked !== undefined && asked < now) {
      this.discardAsked.delete(doc.name);
      return null;
    }
    this.discardAsked.set(doc.name, now);
    return {
      ok: false,
      error: {
        code: 'invalid_state',
        message: `关闭“${doc.name}”会丢弃它未保存的修改，关闭后无法撤销：没有执行。`,
        hint: '先问用户：保存后再关闭（save 设为 true），还是放弃修改直接关闭。用户在下一条消息里明确同意放弃修改后，再调用 close_document。',
      },
    };
  }

  /**
   * Keeps the images beside the transcript when asked to; a failure to write costs the images only. Images the
   * disk quota has no room for are not kept, and the step's remaining calls do not run.
   */
  private async keep(images: readonly ImageOut[]): Promise<readonly TranscriptImage[]> {
    if (!this.imageDir || images.length === 0) return [];
    const room = this.room;
    const asked: { refusal?: RoomRefused } = {};
    try {
      return await keepImages(
        this.imageDir,
        images,
        room &&
          (async (bytes) => {
            try {
              await room(bytes, 'images');
            } catch (err) {
              asked.refusal = new RoomRefused(err instanceof Error ? err.message : String(err));
              throw err;
            }
          }),
      );
    } catch (err) {
      if (asked.refusal) this.refused = asked.refusal;
      else this.onInternalError(err);
      return [];
    }
  }

  /** The follow-up user message that shows a vision model the step's images, or null when there are none. */
  private imageMessage(images: readonly ModelImage[]): ChatCompletionUserMessageParam | null {
    if (!this.config.vision || images.length === 0) return null;
    const sent = images.slice(0, MODEL_IMAGES_PER_MESSAGE);
    const parts: ChatCompletionContentPart[] = [
      {
        type: 'text',
        text: `上面工具调用返回的图像（已缩小到最长边不超过 ${MODEL_IMAGE_MAX_SIDE} px）${
          images.length > sent.length ? `，共 ${images.length} 张，这里给出前 ${sent.length} 张` : ''
        }：`,
      },
    ];
    sent.forEach((img, i) => {
      parts.push(
        { type: 'text', text: imageTitle(img, i) },
        { type: 'image_url', image_url: { url: img.url } },
      );
    });
    return { role: 'user', content: parts };
  }

  /**
   * Replaces every image but the newest `keep` by `note`; true when one was replaced. Older images are never sent
   * again, so they do not stay in memory either.
   */
  private forgetImages(keep: number, note: string): boolean {
    let seen = 0;
    let replaced = false;
    for (let t = this.turns.length - 1; t >= 0; t--) {
      const turn = this.turns[t]!;
      for (let i = turn.length - 1; i >= 0; i--) {
        const m = turn[i]!;
        if (m.role !== 'user' || !Array.isArray(m.content)) continue;
        let changed = false;
        const parts = [...m.content].reverse().map((p) => {
          if (p.type !== 'image_url' || ++seen <= keep) return p;
          changed = true;
          return { type: 'text' as const, text: note };
        });
        if (changed) turn[i] = { ...m, content: parts.reverse() };
        replaced ||= changed;
      }
    }
    return replaced;
  }

  /**
   * The request's messages: the system prompt, then the latest turns that fit the context budget (fitConversation:
   * shortened before they are left out); not ok, with the newest turn's estimate, when even it cannot fit.
   */
  private contextMessages():
    | { readonly ok: true; readonly messages: ChatCompletionMessageParam[] }
    | { readonly ok: false; readonly tokens: number } {
    const fit = fitConversation(this.turns, { budget: this.config.contextTokens, fixed: this.fixedTokens });
    if (!fit.ok) return fit;
    const system = fit.omitted > 0 ? `${this.system}\n\n${omittedNote(fit.omitted)}` : this.system;
    const messages = joinUserMessages(fit.turns.flat()).map(withObjectArguments);
    return {
      ok: true,
      messages: [
        { role: 'system', content: system },
        ...(wantsAssistantAfterTool(this.config) ? bridgeToolAnswers(messages) : messages),
      ],
    };
  }
}

/** What a failed call's error says, for the designer (a malformed JSON's parser text is not for them). */
function failureText(result: { readonly ok: boolean; readonly error?: unknown }): string {
  if (result.ok) return '';
  const error = result.error as { code?: unknown; message?: unknown } | undefined;
  if (error?.code === 'invalid_json') return '参数不是有效的 JSON';
  const message = typeof error?.message === 'string' ? error.message.replace(/\s+/g, ' ').trim() : '';
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/** Why the turn stopped at a call the model kept sending though it failed each time. */
function stuckMessage(stuck: { readonly name: string; readonly message: string }): string {
  const tool = findTool(stuck.name);
  const what = tool ? ` ${tool.name}（${tool.label}）` : '一个不存在的工具';
  const why = stuck.message === '' ? '' : `：${stuck.message.replace(/[。.]$/, '')}`;
  return `模型以同样的参数反复调用${what}，本轮已失败 ${REPEATED_FAILURE_LIMIT} 次${why}。为免继续空转，本轮已停止；已完成的调用都保留着。可以换个说法，或补充模型缺少的信息后再发一条消息。`;
}

/**
 * The messages with each run of user messages joined into one. A turn the model never answered (a failed or
 * cancelled request) leaves its user message without a reply, and one that ended after result images leaves
 * their message last: with the next turn's message that makes two user messages in a row, which DeepSeek's
 * reasoner and the chat templates of Gemma and older Mistral models refuse — in every later request, since the
 * history keeps them. Joined, nothing the designer said is lost; only the newest state summary is kept.
 */
function joinUserMessages(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (m.role !== 'user' || prev?.role !== 'user') {
      out.push(m);
      continue;
    }
    if (typeof prev.content === 'string' && typeof m.content === 'string') {
      // The earlier message's state summary is out of date (the newer one's is the state now), and the same words
      // sent again (a message the model service failed to answer, sent once more) are said once.
      const earlier = userWords(prev.content);
      const content = earlier === userWords(m.content) ? m.content : `${earlier}\n\n${m.content}`;
      out[out.length - 1] = { role: 'user', content };
      continue;
    }
    out[out.length - 1] = { role: 'user', content: [...asParts(prev.content), ...asParts(m.content)] };
  }
  return out;
}

/**
 * Mistral's models (its API, and its own validation where vLLM serves them) refuse a user message right after tool
 * answers ("Unexpected role 'user' after role 'tool'"): the images of a step's results, or the next turn after one
 * that ended without a reply (cancelled, out of steps). Only they get a bridging line, since other services (DeepSeek
 * in thinking mode) refuse an assistant message they did not write.
 */
function wantsAssistantAfterTool(config: ModelConfig): boolean {
  let host = '';
  try {
    host = new URL(config.baseURL).hostname.toLowerCase();
  } catch {}
  return (
    host === 'api.mistral.ai' ||
    /mistral|mixtral|ministral|devstral|magistral|codestral|pixtral/i.test(config.model)
  );
}

function bridgeToolAnswers(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user' && out[out.length - 1]?.role === 'tool') {
      out.push({
        role: 'assistant',
        content: Array.isArray(m.content) ? '（请看下一条消息里的图像。）' : '（这一轮到此结束。）',
      });
    }
    out.push(m);
  }
  return out;
}

/**
 * The assistant message with each call's arguments as the text of a JSON object: arguments a model sent malformed
 * (answered invalid_json) or empty become `{}` in what is sent back. Services that hand the history to a chat
 * template parse them (vLLM before 0.11, llama.cpp, gateways to Anthropic) and refuse the request otherwise — and
 * every later one, since the history keeps the call. The transcript and the studio keep them as the model sent them.
 */
function withObjectArguments(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  if (message.role !== 'assistant' || !message.tool_calls?.some((c) => !objectText(argumentsOf(c))))
    return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((c) =>
      c.type === 'function' && !objectText(c.function.arguments)
        ? { ...c, function: { ...c.function, arguments: '{}' } }
        : c,
    ),
  };
}

function argumentsOf(call: NonNullable<ChatCompletionAssistantMessageParam['tool_calls']>[number]): string {
  return call.type === 'function' ? call.function.arguments : '{}';
}

function objectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function asParts(content: ChatCompletionUserMessageParam['content']): ChatCompletionContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

function hasToolCalls(message: ChatCompletionMessageParam): boolean {
  return message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0;
}

/** The image message as the transcript keeps it: titles, and each image's kept file instead of its bytes. */
function transcriptParts(
  message: ChatCompletionUserMessageParam,
  images: readonly ModelImage[],
): TranscriptPart[] {
  const parts = Array.isArray(message.content) ? message.content : [];
  let image = 0;
  return parts.map((p) => {
    if (p.type !== 'image_url') return p as TranscriptPart;
    const file = images[image++]?.file;
    return { type: 'image_url', image_url: { url: '(图像数据未写入记录)' }, ...(file ? { file } : {}) };
  });
}
