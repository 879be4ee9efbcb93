/**
 * `atelier chat`: the agent loop in a terminal. One user message per line of stdin (a pipe works too); the
 * assistant's words stream to stdout as they arrive, each tool call is one line with its Chinese label, arguments
 * and outcome, and result images are written into the workspace with their paths printed. Ctrl-C cancels the
 * running turn; a second Ctrl-C exits.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  describeModel,
  HOW_TO_CONFIGURE,
  MODEL_OPTIONS,
  MODEL_USAGE,
  type ModelConfig,
  ModelConfigError,
  modelConfigFrom,
} from '../agent/config.js';
import type { ChatEvent } from '../agent/events.js';
import { KEPT_IMAGES, TRANSCRIPT_FILE } from '../agent/transcript.js';
import type { Session } from '../calls/session.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';
import type { ImageOut } from '../tools/types.js';
import { type Command, UsageError } from './usage.js';

const ARGUMENTS_SHOWN = 160;

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function argumentsText(args: unknown): string {
  return shorten(typeof args === 'string' ? args : JSON.stringify(args), ARGUMENTS_SHOWN);
}

/** ✗ with the Chinese message and hint, or ✓. */
function outcomeText(ok: boolean, result: unknown): string {
  if (ok) return '✓';
  const error = (result as { error?: { message?: unknown; hint?: unknown } }).error ?? {};
  const hint = typeof error.hint === 'string' ? `（${error.hint}）` : '';
  return `✗ ${String(error.message ?? '失败')}${hint}`;
}

/** A timestamp for file names, so a later chat in the same workspace does not overwrite earlier images. */
function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Prints a turn's events as a terminal shows them; remembers how the last turn ended. */
class Printer {
  private midLine = false;
  private streamed = false;
  private readonly calls = new Map<string, { label: string; name: string; args: unknown }>();
  private images = 0;
  private readonly prefix = stamp();
  lastError: string | null = null;

  constructor(
    private readonly session: Session,
    private readonly out: (text: string) => void,
    private readonly err: (text: string) => void,
  ) {}

  private line(text: string): void {
    if (this.midLine) this.out('\n');
    this.midLine = false;
    this.out(`${text}\n`);
  }

  async print(event: ChatEvent): Promise<void> {
    switch (event.type) {
      case 'user':
        this.lastError = null;
        return;
      case 'assistant_delta':
        this.out(event.text);
        this.midLine = !event.text.endsWith('\n');
        this.streamed = true;
        return;
      case 'assistant':
        if (this.streamed) {
          if (this.midLine) this.out('\n');
          this.midLine = false;
        } else {
          this.line(event.text);
        }
        this.streamed = false;
        return;
      case 'tool_call':
        this.streamed = false;
        this.calls.set(event.id, { label: event.label, name: event.name, args: event.arguments });
        return;
      case 'progress':
        this.err(
          `  … ${event.stage}${event.fraction !== undefined ? ` ${Math.round(event.fraction * 100)}%` : ''}\n`,
        );
        return;
      case 'tool_result': {
        const call = this.calls.get(event.id);
        this.calls.delete(event.id);
        const card = call ? `[${call.label}] ${call.name} ${argumentsText(call.args)}` : `[${event.name}]`;
        this.line(`${card} ${outcomeText(event.ok, event.result)}`);
        for (const image of event.images ?? []) this.line(`  图像：${await this.save(image)}`);
        return;
      }
      case 'done':
        if (this.midLine) this.out('\n');
        this.midLine = false;
        return;
      case 'error':
        if (this.midLine) this.out('\n');
        this.midLine = false;
        this.streamed = false;
        this.lastError = event.code;
        this.err(`✗ ${event.message}\n`);
        return;
    }
  }

  /** Writes the image into the workspace and returns its absolute path. */
  private async save(image: ImageOut): Promise<string> {
    this.images++;
    const rel = `${KEPT_IMAGES}/${this.prefix}-${this.images}.${image.mime === 'image/png' ? 'png' : 'jpg'}`;
    try {
      await this.session.workspace.writeAtomic(rel, Buffer.from(image.base64, 'base64'));
      return join(this.session.workspace.root, rel);
    } catch (err) {
      return `（未能写入 ${rel}：${err instanceof Error ? err.message : String(err)}）`;
    }
  }
}

function configOf(values: Record<string, string | boolean | undefined>): ModelConfig | null {
  try {
    return modelConfigFrom(values);
  } catch (err) {
    if (err instanceof ModelConfigError) throw new UsageError(err.message);
    throw err;
  }
}

export const chatCommand: Command = {
  name: 'chat',
  summary: 'chat with a model that edits images through the tools (one message per line of stdin)',
  usage: [
    'Usage: atelier chat [--workspace DIR] [model options]',
    '',
    'Talks to an OpenAI-compatible chat model that edits the workspace through the tools. Reads one user',
    'message per line of stdin (interactive or a pipe); streams the answers; prints each tool call as one',
    'line (Chinese label, arguments, ✓ or ✗ with the message and hint); writes result images to',
    `${KEPT_IMAGES}/ in the workspace and prints their paths. The conversation is appended to`,
    `${TRANSCRIPT_FILE} in the workspace; \`atelier run ${TRANSCRIPT_FILE}\` replays its tool calls.`,
    'Ctrl-C cancels the running turn; a second Ctrl-C exits. Exit code 2 when no model is configured,',
    '1 when the last turn ended with a model error.',
    '',
    `  --workspace DIR         folder every path is relative to (default: ${DEFAULT_WORKSPACE})`,
    '',
    ...MODEL_USAGE,
  ].join('\n'),
  options: { workspace: { type: 'string' }, ...MODEL_OPTIONS },
  async run(values) {
    const config = configOf(values);
    if (!config) {
      process.stderr.write(`${HOW_TO_CONFIGURE}\n`);
      return 2;
    }
    const report = (err: unknown): void => {
      process.stderr.write(
        `atelier chat: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    };
    // Loaded here, not at the top: `--help` and the other commands must not load the engine.
    const [{ Session }, { Conversation }] = await Promise.all([
      import('../calls/session.js'),
      import('../agent/conversation.js'),
    ]);
    const session = new Session({
      workspace: String(values.workspace ?? DEFAULT_WORKSPACE),
      onInternalError: report,
    });
    const transcript = join(session.workspace.root, TRANSCRIPT_FILE);
    const conversation = new Conversation({ session, config, transcript, onInternalError: report });
    const shown = describeModel(config);
    process.stderr.write(
      `atelier chat: ${shown.model} at ${shown.base_url} (${shown.vision ? 'vision' : 'text only'}, ${shown.tools} tools); ` +
        `workspace ${session.workspace.root}; transcript ${TRANSCRIPT_FILE}. Ctrl-C cancels a turn.\n`,
    );

    const interactive = Boolean(process.stdin.isTTY);
    const lines = createInterface({
      input: process.stdin,
      terminal: interactive,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let cancelling = false;
    const interrupt = () => {
      if (conversation.running && !cancelling) {
        cancelling = true;
        conversation.cancel();
        process.stderr.write('\n（正在取消本轮；再按一次 Ctrl-C 退出）\n');
        return;
      }
      process.stderr.write('\n');
      process.exit(130);
    };
    lines.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);

    const printer = new Printer(
      session,
      (text) => process.stdout.write(text),
      (text) => process.stderr.write(text),
    );
    // Events are printed in order even though saving an image is asynchronous.
    let printing: Promise<void> = Promise.resolve();
    try {
      if (interactive) process.stdout.write('你> ');
      for await (const line of lines) {
        if (line.trim() !== '') {
          await conversation.turn(line, (event) => {
            printing = printing.then(() => printer.print(event)).catch(report);
          });
          await printing;
          cancelling = false;
        }
        if (interactive) process.stdout.write('你> ');
      }
    } finally {
      process.off('SIGINT', interrupt);
      lines.close();
    }
    return printer.lastError?.startsWith('model_') ? 1 : 0;
  },
};
