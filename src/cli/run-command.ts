/** `atelier run`: tool calls as JSONL in, one result line per call out, all in one session. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { TranscriptReplay } from '../agent/transcript.js';
import { failure, type ToolResult } from '../calls/result.js';
import type { Session } from '../calls/session.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';
import type { ImageOut } from '../tools/types.js';
import type { Command } from './usage.js';

/** Writes a result's images into the workspace and puts their paths in the result instead. */
async function externaliseImages(session: Session, result: ToolResult, seq: number): Promise<ToolResult> {
  if (!result.ok || !result.images?.length) return result;
  const { images, ...rest } = result;
  const paths: string[] = [];
  for (const [i, img] of (images as readonly ImageOut[]).entries()) {
    const rel = `images/call-${seq}-${i + 1}.${img.mime === 'image/png' ? 'png' : 'jpg'}`;
    await session.workspace.writeAtomic(rel, Buffer.from(img.base64, 'base64'));
    paths.push(rel);
  }
  return { ...rest, image_files: paths } as ToolResult;
}

/** A transcript line (`{call, result}`, as `--transcript` writes) replays as its call. */
function fromTranscript(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'call' in value && 'result' in value
    ? (value as { call: unknown }).call
    : value;
}

function idOf(value: unknown): string | null {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
    ? (value as { id: string }).id
    : null;
}

function nameOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as { name?: unknown; function?: { name?: unknown } };
  const name = v.function?.name ?? v.name;
  return typeof name === 'string' ? name : null;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run tool calls from a JSONL file (or stdin) in one session',
  usage: [
    'Usage: atelier run [FILE|-] [--workspace DIR] [--transcript FILE]',
    '',
    'Reads one tool call per line — {"id","type":"function","function":{"name","arguments"}} or',
    '{"name","arguments"}, or a --transcript line {"call","result"} — runs them in order in one session,',
    "and replays an agent transcript (`atelier chat`'s chat.jsonl): each assistant message's tool calls,",
    'in order, skipping the calls the loop did not run; its other lines are skipped.',
    'Writes one JSON line per call:',
    '{"tool_call_id","name","result"}. Images in results are written into the workspace as files.',
    `  --workspace DIR     folder every path is relative to (default: ${DEFAULT_WORKSPACE})`,
    '  --transcript FILE   also append every call and result to FILE as JSONL',
  ].join('\n'),
  options: { workspace: { type: 'string' }, transcript: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals) {
    const file = positionals[0] ?? '-';
    // Loaded here, not at the top: `atelier tools` and `--help` must not load the engine.
    const { Session } = await import('../calls/session.js');
    const session = new Session({
      workspace: String(values.workspace ?? DEFAULT_WORKSPACE),
      ...(values.transcript ? { transcript: String(values.transcript) } : {}),
    });
    const input = file === '-' ? process.stdin : createReadStream(file, 'utf8');
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let seq = 0;
    const replay = new TranscriptReplay();
    let first = true;
    for await (const read of lines) {
      // Windows editors (Notepad among them) start a UTF-8 file with a byte order mark, which JSON.parse refuses.
      const line = first ? read.replace(/^\uFEFF/, '') : read;
      first = false;
      if (line.trim() === '') continue;
      let calls: readonly unknown[];
      try {
        const value: unknown = JSON.parse(line);
        calls = replay.callsOf(value) ?? [fromTranscript(value)];
      } catch {
        calls = [undefined];
      }
      for (const call of calls) {
        seq++;
        await runOne(session, call, seq);
      }
    }
    return 0;
  },
};

/** Runs one call (undefined: the line was not JSON) and writes its result line. */
async function runOne(session: Session, call: unknown, seq: number): Promise<void> {
  let result: ToolResult;
  if (call === undefined) {
    result = failure('invalid_json', '这一行不是有效的 JSON', { hint: '每行一个工具调用 JSON 对象' });
  } else {
    result = await session.call(call);
    const withImages = result;
    result = await externaliseImages(session, withImages, seq).catch((err: Error) => {
      const { images: _dropped, ...rest } = withImages as ToolResult & { images?: unknown };
      return { ...rest, image_error: `图像未能写入工作区：${err.message}` } as ToolResult;
    });
  }
  const out = { tool_call_id: idOf(call), name: nameOf(call), result };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
