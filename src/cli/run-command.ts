/** `atelier run`: tool calls as JSONL in, one result line per call out, all in one session. */
import { type FileHandle, open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { TranscriptReplay } from '../agent/transcript.js';
import { describeJsonFault } from '../calls/json-fault.js';
import { failure, type ToolResult } from '../calls/result.js';
import type { Session } from '../calls/session.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';
import type { ImageOut } from '../tools/types.js';
import { type Command, UsageError } from './usage.js';

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

/**
 * The call's id as OpenAI gives it, a string: a number (as hand-written JSONL or a JSON-RPC habit has it) is
 * taken as its decimal text; null when there is no id. `undefined` for an id of any other type, which is refused.
 */
function idOf(value: unknown): string | null | undefined {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return id === null ? null : undefined;
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
    '{"tool_call_id","name","result"}; a numeric id comes back as a string. Images in results are written',
    'into the workspace as files.',
    `  --workspace DIR     folder every path is relative to (default: ${DEFAULT_WORKSPACE})`,
    '  --transcript FILE   also append every call and result to FILE as JSONL',
    '',
    'Exit status: 0 when every call succeeded; 1 when any failed (its result has "ok": false; the calls after',
    'it still run and every result is written); 2 for a usage error or an input FILE that cannot be read.',
  ].join('\n'),
  options: { workspace: { type: 'string' }, transcript: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length > 1) {
      throw new UsageError(`最多一个输入文件，收到 ${positionals.length} 个\n\n${runCommand.usage}`);
    }
    const file = positionals[0] ?? '-';
    const input = file === '-' ? process.stdin : await openInput(file);
    // Loaded here, not at the top: `atelier tools` and `--help` must not load the engine.
    const { Session } = await import('../calls/session.js');
    const session = new Session({
      workspace: String(values.workspace ?? DEFAULT_WORKSPACE),
      ...(values.transcript ? { transcript: String(values.transcript) } : {}),
    });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let failed = 0;
    let seq = 0;
    const replay = new TranscriptReplay();
    let lineNumber = 0;
    for await (const read of lines) {
      lineNumber++;
      // Windows editors (Notepad among them) start a UTF-8 file with a byte order mark, which JSON.parse refuses.
      const line = lineNumber === 1 ? read.replace(/^\uFEFF/, '') : read;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        seq++;
        if (!(await runOne(session, new NotJson(lineNumber, line), seq))) failed++;
        continue;
      }
      for (const call of replay.callsOf(value) ?? [fromTranscript(value)]) {
        seq++;
        if (!(await runOne(session, call, seq))) failed++;
      }
    }
    return failed === 0 ? 0 : 1;
  },
};

/**
 * The input file, opened before anything else happens (no session, no workspace folder made): one that cannot be
 * read is a usage error (exit 2), told apart from calls that failed (exit 1).
 */
async function openInput(file: string): Promise<NodeJS.ReadableStream> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error('folder'), { code: 'EISDIR' });
    return handle.createReadStream({ encoding: 'utf8' });
  } catch (err) {
    await handle?.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why = code ? (UNREADABLE[code] ?? code) : (err as Error).message;
    throw new UsageError(`无法读取 ${file}：${why}`);
  }
}

/** An input line JSON.parse refused: it is answered as a failed call, saying where it broke. */
class NotJson {
  constructor(
    readonly lineNumber: number,
    readonly text: string,
  ) {}
}

/** Why an input file cannot be read, by its error code; the code itself for a rarer one. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: '文件不存在（ENOENT）',
  EACCES: '没有读取它的权限（EACCES）',
  EPERM: '没有读取它的权限（EPERM）',
  EISDIR: '这是文件夹，不是文件',
  ENOTDIR: '路径中的某一段不是文件夹（ENOTDIR）',
};

/** Runs one call and writes its result line; false when it failed. */
async function runOne(session: Session, call: unknown, seq: number): Promise<boolean> {
  let result: ToolResult;
  const id = call instanceof NotJson ? null : idOf(call);
  if (call instanceof NotJson) {
    result = failure(
      'invalid_json',
      `第 ${call.lineNumber} 行不是有效的 JSON：${describeJsonFault(call.text)}`,
      { hint: '每行一个工具调用 JSON 对象' },
    );
  } else if (id === undefined) {
    result = failure(
      'invalid_arguments',
      `调用的 id 应为字符串，收到 ${JSON.stringify((call as { id: unknown }).id).slice(0, 100)}`,
      {
        hint: 'id 写成字符串（如 "call_1"）或数字，也可以省略；这个调用未执行',
      },
    );
  } else {
    result = await session.call(call);
    const withImages = result;
    result = await externaliseImages(session, withImages, seq).catch((err: Error) => {
      const { images: _dropped, ...rest } = withImages as ToolResult & { images?: unknown };
      return { ...rest, image_error: `图像未能写入工作区：${err.message}` } as ToolResult;
    });
  }
  const out = { tool_call_id: id ?? null, name: nameOf(call), result };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  return result.ok;
}
