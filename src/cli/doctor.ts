/**
 * `atelier doctor`: checks that this machine can run Atelier, by doing a little real work end to end — tool
 * calls through a throwaway session (compositing with the WebAssembly kernels, Chinese text from the bundled
 * font, a PSD saved and opened again, a PNG through sharp) — plus the workspace and the configuration.
 * One line per check on stdout; exit code 0 when every check passed, 1 otherwise.
 */
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeModel, modelConfigFrom } from '../agent/config.js';
import { createModelClient, outputLimit } from '../agent/model-client.js';
import { describeModelFailure } from '../agent/model-errors.js';
import type { ToolResult } from '../calls/result.js';
import { Session } from '../calls/session.js';
import { parallelReady } from '../engine/composite/parallel.js';
import { PROFILE_VARIABLE, pressProfile } from '../engine/press-profile.js';
import sharp from '../engine/sharp.js';
import { makeFoldersSync } from '../engine/workspace.js';
import { OpenAIVision } from '../garment/openai-vision.js';
import { selectVision } from '../garment/vision.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';

interface Check {
  readonly name: string;
  /** Resolves to a detail line, or throws what is wrong. */
  readonly run: () => Promise<string>;
  /** A failed optional check is reported but does not fail the doctor. */
  readonly optional?: boolean;
}

const MIN_NODE = [20, 9] as const;

/** The CMYK press profile; only a configured (ATELIER_CMYK_PROFILE) one that is missing fails the doctor. */
function cmykProfileCheck(): Check {
  return {
    name: 'cmyk',
    optional: !process.env[PROFILE_VARIABLE]?.trim(),
    run: async () => {
      try {
        const p = pressProfile();
        return `${p.name} (${p.path}, ${p.source === 'default' ? 'default' : PROFILE_VARIABLE})`;
      } catch (err) {
        const e = err as Error & { hint?: string };
        throw new Error(`${e.message}${e.hint ? `; ${e.hint}` : ''}`);
      }
    },
  };
}

function nodeCheck(): Check {
  return {
    name: 'node',
    run: async () => {
      const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
      const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
      if (!ok) throw new Error(`Node.js ${process.versions.node}; Atelier needs ≥ ${MIN_NODE.join('.')}`);
      return `Node.js ${process.versions.node}`;
    },
  };
}

function workspaceCheck(dir: string): Check {
  return {
    name: 'workspace',
    run: async () => {
      const abs = path.resolve(dir);
      makeFoldersSync(abs);
      await access(abs, constants.W_OK);
      return `${abs} is writable`;
    },
  };
}

async function expectOk(session: Session, name: string, args: Record<string, unknown> = {}) {
  const r: ToolResult = await session.call({
    id: `doctor_${name}`,
    type: 'function',
    function: { name, arguments: args },
  });
  if (!r.ok) throw new Error(`${name}: ${r.error.code}: ${r.error.message}`);
  return r as Record<string, unknown>;
}

/** The colour at (x, y) as "#rrggbb". */
async function pixel(session: Session, x: number, y: number): Promise<string> {
  return String((await expectOk(session, 'get_pixel_color', { x, y })).hex);
}

/** Checks that run real tool calls in one throwaway session, in order. */
function engineChecks(session: () => Session): Check[] {
  // Red at 50 % multiplied onto white: W3C multiply gives #ff8080 (±1 per channel for rounding).
  const wanted = /^#ff(7f|80)(7f|80)$/;
  return [
    {
      name: 'compositor',
      run: async () => {
        const s = session();
        await expectOk(s, 'create_document', { width: 64, height: 64, name: 'doctor' });
        await expectOk(s, 'create_layer', { name: 'red' });
        await expectOk(s, 'select_all');
        await expectOk(s, 'fill_selection', { color: '#ff0000' });
        await expectOk(s, 'deselect');
        await expectOk(s, 'set_layer_blend_mode', { name: 'red', mode: 'multiply' });
        await expectOk(s, 'set_layer_opacity', { name: 'red', opacity: 50 });
        const got = await pixel(s, 50, 50);
        if (!wanted.test(got)) throw new Error(`50 % red multiplied onto white gave ${got}, not #ff8080`);
        const workers = await parallelReady();
        return `blend modes in WebAssembly SIMD; ${workers} worker thread${workers === 1 ? '' : 's'} beside the main one`;
      },
    },
    {
      name: 'text',
      run: async () => {
        const r = await expectOk(session(), 'create_text_layer', { text: '中文', x: 4, y: 4, font_size: 24 });
        const text = r.text as { rendered_font?: string };
        const bounds = (r.layer as { bounds?: { width?: number } }).bounds;
        if (r.font_fallback || !bounds?.width)
          throw new Error(`Chinese text did not render: ${JSON.stringify(r)}`);
        return `Chinese renders with ${text.rendered_font}`;
      },
    },
    {
      name: 'psd',
      run: async () => {
        const s = session();
        await expectOk(s, 'save_document_as', { path: 'doctor.psd' });
        await expectOk(s, 'close_document', { save: false });
        await expectOk(s, 'open_document', { path: 'doctor.psd' });
        const got = await pixel(s, 50, 50);
        if (!wanted.test(got)) throw new Error(`the reopened PSD shows ${got} where #ff8080 was saved`);
        const { layers } = (await expectOk(s, 'list_all_layer_names')) as { layers: { name: string }[] };
        const names = layers.map((l) => l.name);
        if (!names.includes('red') || !names.includes('中文')) {
          throw new Error(`the reopened PSD has the layers ${JSON.stringify(names)}`);
        }
        return `saved and reopened a PSD with its ${names.length} layers`;
      },
    },
    {
      name: 'png',
      run: async () => {
        const r = await expectOk(session(), 'save_document_as', { path: 'doctor.png' });
        return `${String(r.path ?? 'doctor.png')} through sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`;
      },
    },
  ];
}

/**
 * The vision model, when one is configured: one tiny real request (a red square, a JSON answer asked for), so an
 * unreachable server and one that answers nonsense are both told here rather than at the first garment call
 * (where the tools fall back to the builtin analysis with a warning). A configured model that fails fails the doctor.
 */
function visionCheck(): Check {
  const url = process.env.ATELIER_VISION_BASE_URL?.trim();
  const model = process.env.ATELIER_VISION_MODEL?.trim();
  return {
    name: 'vision',
    optional: !(url && model),
    run: async () => {
      if (!url && !model) return 'built-in classical CV (no vision model configured)';
      if (!url || !model) {
        throw new Error('set both ATELIER_VISION_BASE_URL and ATELIER_VISION_MODEL, or neither');
      }
      const vision = selectVision();
      if (!(vision instanceof OpenAIVision)) throw new Error(`${model} at ${url} was not selected`);
      try {
        const colour = await vision.probe();
        return `${model} at ${url} answered a test image correctly (“${colour}”)`;
      } catch (err) {
        const e = err as Error & { hint?: string };
        throw new Error(
          `${model} at ${url}: ${e.message}${e.hint ? `; ${e.hint}` : ''} — garment tools fall back to the built-in analysis`,
        );
      }
    },
  };
}

/**
 * The chat model, when one is configured (ATELIER_MODEL or --model): one tiny real request, so a wrong key, base URL
 * or model name is told here, in the words the studio and `atelier chat` would use, rather than at the first
 * message. Without one, the studio is a manual editor: not a failure.
 */
function modelCheck(values: Record<string, string | boolean | undefined>): Check {
  let config: ReturnType<typeof modelConfigFrom>;
  let invalid: string | null = null;
  try {
    config = modelConfigFrom(values);
  } catch (err) {
    config = null;
    invalid = err instanceof Error ? err.message : String(err);
  }
  return {
    name: 'model',
    optional: config === null && invalid === null,
    run: async () => {
      if (invalid !== null) throw new Error(invalid);
      if (config === null)
        return 'no chat model configured (the studio is a manual editor; ATELIER_MODEL sets one)';
      const client = createModelClient(config);
      const started = performance.now();
      try {
        await client.chat.completions.create(
          {
            model: config.model,
            messages: [{ role: 'user', content: 'Reply with the word OK.' }],
            ...outputLimit(config),
          },
          { signal: AbortSignal.timeout(config.timeoutMs) },
        );
      } catch (err) {
        const timedOut = err instanceof Error && err.name === 'AbortError';
        throw new Error(describeModelFailure(err, timedOut ? 'timeout' : null, config).message);
      }
      const ms = Math.round(performance.now() - started);
      return `${config.model} at ${describeModel(config).base_url} answered a test message in ${ms} ms`;
    },
  };
}

/** Runs every check, one line each; 0 when all passed. */
export async function runDoctor(values: Record<string, string | boolean | undefined>): Promise<number> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'atelier-doctor-'));
  let session: Session | undefined;
  const use = () => {
    session ??= new Session({ workspace: scratch });
    return session;
  };
  const checks = [
    nodeCheck(),
    workspaceCheck(typeof values.workspace === 'string' ? values.workspace : DEFAULT_WORKSPACE),
    ...engineChecks(use),
    cmykProfileCheck(),
    modelCheck(values),
    visionCheck(),
  ];
  let failed = 0;
  try {
    for (const check of checks) {
      const started = performance.now();
      try {
        const detail = await check.run();
        const ms = Math.round(performance.now() - started);
        process.stdout.write(`ok    ${check.name.padEnd(10)} ${detail} (${ms} ms)\n`);
      } catch (err) {
        if (!check.optional) failed++;
        const mark = check.optional ? 'warn ' : 'FAIL ';
        process.stdout.write(
          `${mark} ${check.name.padEnd(10)} ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(
    failed === 0 ? 'atelier doctor: all checks passed\n' : `atelier doctor: ${failed} check(s) failed\n`,
  );
  return failed === 0 ? 0 : 1;
}
