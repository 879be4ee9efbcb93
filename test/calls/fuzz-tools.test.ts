/**
 * Property test of the product's promise on bad input: every tool of the `extended` registry, called through a
 * real session with arguments generated from its schema (valid ones at and past the edges, and invalid ones),
 * returns in time; a failed call has a documented code and a Chinese message and changes no document and no
 * file; a successful one leaves documents that composite and save as a PSD psd-tools opens; and no call puts a
 * file outside the workspace. Generated with fast-check from a fixed seed, so a failure reproduces exactly.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/calls/result.js';
import type { Session, SessionState } from '../../src/calls/session.js';
import type { ErrorCode } from '../../src/engine/errors.js';
import { encodePsd } from '../../src/engine/io/psd.js';
import {
  findTool,
  type ItemSchema,
  type ParamLimits,
  type ParamSchema,
  type ToolDefinition,
  toolsOf,
} from '../../src/registry/index.js';
import { psdToolsAvailable, SYSTEM_PYTHON } from '../support/psd-tools.js';
import { call, hashEditor, newSession, ok, tempDir } from '../support/session.js';

/** FUZZ_SEED and FUZZ_RUNS override these for a longer hunt; the suite runs the fixed ones. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const RUNS_PER_TOOL = Number(process.env.FUZZ_RUNS ?? 28);
/** A call that has not returned after this long hangs. Not a speed assertion: calls here take milliseconds. */
const WATCHDOG_MS = 60_000;
/** About one successful call in this many has its documents composited and saved as PSD for psd-tools. */
const SAMPLE_EVERY = 14;
/** Chains of calls without going back to the fixture in between, to reach states one call cannot. */
const CHAINS = Number(process.env.FUZZ_CHAINS ?? 40);
const CHAIN_LENGTH = 8;

const CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'unknown_tool',
  'invalid_json',
  'invalid_arguments',
  'no_document',
  'not_found',
  'conflict',
  'locked',
  'invalid_state',
  'out_of_bounds',
  'unsupported',
  'io_error',
  // 'internal' is documented too, but it means a bug: the fuzz reports it as one.
]);
const CHINESE = /[\u3400-\u9fff]/;

// ---------------------------------------------------------------------------------------------------------------
// Values

const WEIRD_STRINGS = [
  '',
  ' ',
  '\t\n',
  '😀🎨👩‍👩‍👧',
  'שלום عربي',
  '\u202Eevil.png',
  'a\u0000b',
  '\uFEFF',
  '\uD800',
  'x'.repeat(255),
  'y'.repeat(256),
  '名'.repeat(1025),
  '<script>alert(1)</script>',
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder as text is the point
  '${process.exit()}',
  'null',
  '[]',
];

/** Names in the main document: shared names are told apart as `A#1` (top) and `A#2`. */
const LAYER_NAMES = ['背景', 'A#1', 'A#2', 'G', 'B', 'C', '你好 Atelier', '前片', '后片'];
const MISSING_NAMES = ['A', 'A#3', 'A#0', 'A#-1', 'G/B', '不存在', '#', 'B#1', 'C#2', 'a'];
const DOC_NAMES = ['主文档', '第二个', '印刷', '不存在的文档', 'saved'];
const FONTS = ['Noto Sans SC', 'Arial', 'Helvetica Neue', '不存在的字体'];
const COLORS = ['#ff0000', '0f0', '#ABCDEF', '#000', 'fff', '#808080'];
const BAD_COLORS = ['#12345', 'red', '#gggggg', '#ff00ff00', 'rgb(1,2,3)'];

/** Filled in once the workspace exists: absolute paths outside it land in a folder the test watches. */
let outsideDir = '';
const GOOD_PATHS = [
  'in.png',
  'sub/in2.png',
  'garment.png',
  'saved.psd',
  'out.png',
  'out/new.psd',
  'out/新 图.jpg',
  'x.jpg',
  'x.psb',
];
const pathPool = (): string[] => [
  'huge.psd',
  'cut.psd',
  'link.png',
  'escape/x.psd',
  'escape/../in.png',
  'bad.psd',
  'notes.txt',
  'x.tiff',
  'sub',
  '../x.psd',
  'a/../../b.psd',
  '../../../../etc/passwd',
  `${outsideDir}/abs.psd`,
  `${outsideDir}/../escape.png`,
  '/etc/hostname',
  '/tmp/x.png',
  'C:\\x.psd',
  '..\\x.psd',
  './ok.png',
  'a/./b/../c.png',
  '.',
  '..',
  '...',
  'out/',
  ' out.png',
  'out.png ',
  'emoji😀.png',
  'rtl\u202Egnp.psd',
  'nul\u0000.png',
  `${'d/'.repeat(300)}deep.png`,
  `${'n'.repeat(300)}.png`,
  'p'.repeat(1025),
];

function numberArb(limits: ParamLimits | undefined): fc.Arbitrary<number> {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5,
    2,
    7,
    50,
    100,
    255,
    1000,
    30_000,
    300_000,
    1e9,
    -1e9,
    2 ** 31,
    // Just inside the farthest position a file records, for a move then a transform that goes past it.
    2_147_483_000,
    -2_147_483_000,
    1e308,
    -1e308,
    1e-9,
  ];
  const l = limits ?? {};
  for (const v of [l.min, l.max, l.above]) {
    if (v === undefined) continue;
    edges.push(v, v - 1, v + 1, v - 1e-9, v + 1e-9);
  }
  const lo = l.min ?? l.above ?? -150;
  const hi = Math.min(l.max ?? 150, lo + 400);
  const inRange = l.integer
    ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
    : fc.double({ min: lo, max: hi, noNaN: true, minExcluded: l.above !== undefined });
  return fc.oneof(
    { arbitrary: inRange, weight: 6 },
    { arbitrary: fc.constantFrom(...edges), weight: 2 },
    fc.integer({ min: -200, max: 200 }),
  );
}

function stringArb(key: string, param: { enum?: readonly string[] }, limits: ParamLimits | undefined) {
  const weird = fc.constantFrom(...WEIRD_STRINGS);
  if (param.enum)
    return fc.oneof({ arbitrary: fc.constantFrom(...param.enum), weight: 6 }, weird, fc.string());
  if (limits?.format === 'color') {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...COLORS), weight: 8 },
      fc.constantFrom(...BAD_COLORS),
      weird,
    );
  }
  if (limits?.format === 'path') {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...GOOD_PATHS), weight: 4 },
      { arbitrary: fc.constantFrom(...pathPool()), weight: 4 },
      weird,
    );
  }
  if (key === 'doc_name' || key === 'target_doc') {
    return fc.oneof({ arbitrary: fc.constantFrom(...DOC_NAMES), weight: 4 }, weird);
  }
  if (key === 'font_name') return fc.oneof({ arbitrary: fc.constantFrom(...FONTS), weight: 3 }, weird);
  if (key === 'text' || key === 'description') {
    return fc.oneof(
      { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(
        '第一行\n第二行',
        'z'.repeat(10_000),
        'z'.repeat(10_001),
        'w'.repeat(1000),
        'w'.repeat(1001),
      ),
      weird,
    );
  }
  // Layer and group names, old and new.
  return fc.oneof(
    { arbitrary: fc.constantFrom(...LAYER_NAMES), weight: 10 },
    fc.constantFrom(...MISSING_NAMES),
    weird,
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  );
}

function itemArb(key: string, items: ItemSchema, limits: ParamLimits | undefined): fc.Arbitrary<unknown> {
  if (items.type === 'object') return objectArb(items.properties, items.required, limits?.items);
  return valueArb(key, { type: items.type, description: '' }, limits?.each);
}

function valueArb(key: string, param: ParamSchema, limits: ParamLimits | undefined): fc.Arbitrary<unknown> {
  switch (param.type) {
    case 'string':
      return stringArb(key, param, limits);
    case 'number':
      return numberArb(limits);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const item = param.items ? itemArb(key, param.items, limits) : fc.anything();
      // The garment pieces as a model would send them: the fixture's piece layers, each once.
      const plausible = fc.record(
        {
          type: fc.constantFrom('solid', 'fill_pattern'),
          part: fc.constantFrom('front', 'back', 'other'),
          turn: fc.constantFrom(0, 90, 180, 270),
          color: fc.constantFrom(...COLORS),
        },
        { requiredKeys: ['type', 'part'] },
      );
      const props = param.items?.type === 'object' ? Object.keys(param.items.properties) : [];
      const pieces =
        key === 'pieces'
          ? [
              {
                arbitrary: fc
                  .uniqueArray(fc.tuple(fc.constantFrom('前片', '后片'), plausible), {
                    minLength: 1,
                    maxLength: 2,
                    selector: ([n]) => n,
                  })
                  .map((l) =>
                    l.map(([name, v]) => ({
                      name,
                      ...Object.fromEntries(Object.entries(v).filter(([k]) => props.includes(k))),
                    })),
                  ),
                weight: 8,
              },
            ]
          : [];
      return fc.oneof(
        ...pieces,
        { arbitrary: fc.array(item, { maxLength: 6 }), weight: 8 },
        fc.constant([]),
        fc.array(item, { minLength: 1001, maxLength: 1001 }),
      );
    }
    case 'object':
      return fc.dictionary(fc.string(), fc.anything());
  }
}

function objectArb(
  properties: Readonly<Record<string, ParamSchema>>,
  required: readonly string[],
  limits: Readonly<Record<string, ParamLimits>> | undefined,
): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(properties);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const k of keys) model[k] = valueArb(k, properties[k]!, limits?.[k]);
  // Optional keys are left out at random.
  return fc.record(model, { requiredKeys: required.filter((k) => keys.includes(k)) }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

const junk = fc.oneof(
  fc.constant(null),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant({ a: { b: [1, { c: null }] } }),
  fc.constant([[['深']]]),
  fc.constant({ __proto__: { polluted: true } }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true}}')),
  fc.constant({ toString: 'x', valueOf: 1 }),
);

/** Arguments the schema refuses: a required key missing, a key added, a value of the wrong type, or no object. */
function invalidArb(tool: ToolDefinition): fc.Arbitrary<unknown> {
  const valid = objectArb(tool.parameters.properties, tool.parameters.required, tool.limits);
  const keys = Object.keys(tool.parameters.properties);
  const options: fc.Arbitrary<unknown>[] = [
    valid.chain((args) => junk.map((j) => ({ ...args, extra_key: j }))),
    fc.constantFrom(null, 42, 'text', '{"name": ', '[]', '{}', '{"a":', '\u0000', [], [1, 2], true),
    fc.constant(JSON.stringify(nested(200))),
    fc.constant(nested(200)),
  ];
  if (tool.parameters.required.length) {
    options.push(
      valid.chain((args) =>
        fc.constantFrom(...tool.parameters.required).map((k) => {
          const { [k]: _dropped, ...rest } = args;
          return rest;
        }),
      ),
    );
  }
  if (keys.length) {
    options.push(
      valid.chain((args) => fc.tuple(fc.constantFrom(...keys), junk).map(([k, j]) => ({ ...args, [k]: j }))),
      // The same arguments as a JSON string, one value swapped for junk JSON can carry.
      valid.chain((args) =>
        fc.constantFrom(...keys).map((k) => JSON.stringify({ ...args, [k]: { nested: [args[k] ?? null] } })),
      ),
    );
  }
  return fc.oneof(...options);
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}

function argsArb(tool: ToolDefinition): fc.Arbitrary<unknown> {
  const valid = objectArb(tool.parameters.properties, tool.parameters.required, tool.limits);
  // Models send the arguments as JSON text; the studio and MCP as objects.
  return fc.oneof(
    { arbitrary: valid, weight: 4 },
    { arbitrary: valid.map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: invalidArb(tool), weight: 2 },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The fixture: a realistic session in a watched folder

interface Fixture {
  readonly root: string;
  readonly ws: string;
  readonly session: Session;
  readonly state: SessionState;
  /** The same with the garment photo set, the pieces identified, a preview made and the print applied. */
  readonly garmentState: SessionState;
  /** The same with the CMYK document active. */
  readonly cmykState: SessionState;
  readonly files: Map<string, string>;
  /** The hash of the file outside the workspace that `link.png` points to. */
  readonly secret: string;
}

/** Every file and folder under `dir`: relative path → content hash ('dir' for folders). */
function listTree(dir: string, base = dir, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    const rel = abs.slice(base.length + 1);
    if (e.isSymbolicLink()) {
      out.set(rel, `link → ${readlinkSync(abs)}`);
    } else if (e.isDirectory()) {
      out.set(rel, 'dir');
      listTree(abs, base, out);
    } else {
      out.set(rel, createHash('sha256').update(readFileSync(abs)).digest('hex'));
    }
  }
  return out;
}

function sameTree(a: Map<string, string>, b: Map<string, string>): string | null {
  for (const [k, v] of a) if (b.get(k) !== v) return b.has(k) ? `changed: ${k}` : `removed: ${k}`;
  for (const k of b.keys()) if (!a.has(k)) return `added: ${k}`;
  return null;
}

const baselineBytes = new Map<string, Buffer>();

/** Puts the workspace's files back as they were after the fixture was built. */
function restoreFiles(ws: string, baseline: Map<string, string>): void {
  const now = listTree(ws);
  for (const [rel, kind] of [...now].reverse()) {
    if (baseline.has(rel)) continue;
    rmSync(join(ws, rel), { recursive: kind === 'dir', force: true });
  }
  for (const [rel, hash] of baseline) {
    if (hash.startsWith('link → ')) continue;
    if (hash === 'dir') mkdirSync(join(ws, rel), { recursive: true });
    else if (now.get(rel) !== hash) writeFileSync(join(ws, rel), baselineBytes.get(rel)!);
  }
}

async function buildFixture(): Promise<Fixture> {
  const root = tempDir('atelier-fuzz-');
  const ws = join(root, 'ws');
  outsideDir = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outsideDir);
  mkdirSync(join(ws, 'sub'));
  const stripes = (w: number, h: number) => {
    const data = Buffer.alloc(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      const on = Math.floor((i % w) / 6) % 2 === 0;
      data.set(on ? [200, 30, 40, 255] : [240, 235, 220, 255], i * 4);
    }
    return sharp(data, { raw: { width: w, height: h, channels: 4 } })
      .png()
      .toBuffer();
  };
  writeFileSync(join(ws, 'in.png'), await stripes(32, 24));
  writeFileSync(join(ws, 'sub/in2.png'), await stripes(20, 20));
  writeFileSync(join(ws, 'garment.png'), await stripes(72, 72));
  writeFileSync(join(ws, 'bad.psd'), Buffer.from('8BPS\u0000\u0001garbage'.repeat(8)));
  writeFileSync(join(ws, 'notes.txt'), '不是图片');
  // PSD headers that lie: a canvas past the limits, and pixels cut short.
  const psdHeader = (w: number, h: number) => {
    const b = Buffer.alloc(38);
    b.write('8BPS', 0);
    b.writeUInt16BE(1, 4);
    b.writeUInt16BE(3, 12);
    b.writeUInt32BE(h, 14);
    b.writeUInt32BE(w, 18);
    b.writeUInt16BE(8, 22);
    b.writeUInt16BE(3, 24);
    return b;
  };
  writeFileSync(join(ws, 'huge.psd'), psdHeader(30_000, 30_000));
  writeFileSync(join(ws, 'cut.psd'), Buffer.concat([psdHeader(16_000, 16_000), Buffer.from([0, 0, 1, 2])]));
  // Links out of the workspace: reading or writing through them would reach files outside it.
  writeFileSync(join(root, 'secret.png'), await stripes(16, 16));
  symlinkSync(join(root, 'secret.png'), join(ws, 'link.png'));
  symlinkSync(outsideDir, join(ws, 'escape'));

  const session = newSession(ws);
  const steps: [string, unknown][] = [
    ['create_document', { width: 40, height: 30, name: '第二个' }],
    ['create_layer', { name: 'A' }],
    ['select_all', {}],
    ['fill_selection', { color: '#3366aa' }],
    ['create_document', { width: 24, height: 20, name: '印刷' }],
    ['create_layer', { name: 'B' }],
    ['select_rect', { left: 2, top: 2, right: 20, bottom: 16 }],
    ['fill_selection', { color: '#cc2211' }],
    ['convert_to_cmyk', {}],
    ['create_document', { width: 96, height: 64, name: '主文档' }],
    ['create_layer', { name: 'A' }],
    ['select_rect', { left: 4, top: 4, right: 40, bottom: 30 }],
    ['fill_selection', { color: '#d02030' }],
    ['create_layer', { name: 'A' }],
    ['select_rect', { left: 30, top: 20, right: 80, bottom: 60 }],
    ['fill_selection', { color: '#2040d0', opacity: 80 }],
    ['add_layer_mask', { name: 'A#2' }],
    ['create_text_layer', { text: '你好 Atelier', x: 8, y: 40, font_size: 14, color: '#102030' }],
    ['add_stroke', { name: '你好 Atelier', size: 2, color: '#ffffff' }],
    ['add_drop_shadow', { name: '你好 Atelier', distance: 3, size: 4 }],
    ['create_layer_group', { name: 'G' }],
    ['create_layer', { name: 'B' }],
    ['select_rect', { left: 10, top: 10, right: 60, bottom: 50 }],
    ['fill_selection', { color: '#20a040' }],
    ['move_layer_to_group', { group_name: 'G' }],
    ['create_layer', { name: 'C' }],
    ['select_all', {}],
    ['fill_selection', { color: '#f0f000', opacity: 50 }],
    ['move_layer_to_group', { group_name: 'G' }],
    ['create_clipping_mask', { name: 'C' }],
    ['create_layer', { name: '前片' }],
    ['select_rect', { left: 2, top: 30, right: 30, bottom: 62 }],
    ['fill_selection', { color: '#eeeeee' }],
    ['create_layer', { name: '后片' }],
    ['select_rect', { left: 60, top: 30, right: 94, bottom: 62 }],
    ['fill_selection', { color: '#dddddd' }],
    ['add_guide', { position: 20, direction: 'horizontal' }],
    ['add_guide', { position: 48, direction: 'vertical' }],
    ['save_document_as', { path: 'saved.psd' }],
    ['select_rect', { left: 5, top: 6, right: 50, bottom: 40 }],
  ];
  for (const [name, args] of steps) await ok(session, name, args);
  const files = listTree(ws);
  for (const [rel, hash] of files)
    if (hash !== 'dir' && !hash.startsWith('link')) baselineBytes.set(rel, readFileSync(join(ws, rel)));
  const secret = createHash('sha256')
    .update(readFileSync(join(root, 'secret.png')))
    .digest('hex');
  const state = session.state;
  // The garment workflow's later steps need its photo, analysis and preview first.
  await ok(session, 'set_garment_photo', { path: 'garment.png' });
  await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
  const garmentState = session.state;
  session.restore(state);
  await ok(session, 'switch_document', { doc_name: '印刷' });
  const cmykState = session.state;
  session.restore(state);
  return { root, ws, session, state, garmentState, cmykState, files, secret };
}

// ---------------------------------------------------------------------------------------------------------------
// The run

interface Finding {
  readonly tool: string;
  readonly args: unknown;
  readonly problem: string;
}

function shown(args: unknown): string {
  const text = JSON.stringify(args, (_k, v) =>
    typeof v === 'number' && !Number.isFinite(v)
      ? `<${v}>`
      : typeof v === 'string' && v.length > 80
        ? `${v.slice(0, 40)}…(${v.length} chars)`
        : v,
  );
  return text ?? String(args);
}

function withWatchdog(p: Promise<ToolResult>): Promise<ToolResult | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), WATCHDOG_MS);
  });
  return Promise.race([p, watchdog]).finally(() => clearTimeout(timer));
}

/** One call through the session, checked against every promise; what it broke goes to `findings`. */
class Checker {
  readonly findings: Finding[] = [];
  readonly samples: { tool: string; args: unknown; doc: string; psd: Buffer }[] = [];
  private readonly internals: unknown[] = [];
  private readonly draws: number[];
  private n = 0;
  hung = false;

  constructor(
    private readonly fx: Fixture,
    calls: number,
  ) {
    (fx.session as unknown as { onInternalError: (e: unknown) => void }).onInternalError = (e) =>
      this.internals.push(e);
    this.draws = fc.sample(fc.integer({ min: 0, max: SAMPLE_EVERY - 1 }), { seed: SEED, numRuns: calls });
  }

  /** Runs the call; true when it succeeded. */
  async run(tool: string, args: unknown, context = ''): Promise<boolean> {
    const { session, ws, root } = this.fx;
    const draw = this.draws[this.n++ % this.draws.length]!;
    const before = session.editor.snapshot;
    const hash = hashEditor(before);
    const { garment, garmentPhoto } = session;
    const treeBefore = listTree(ws);
    this.internals.length = 0;
    const note = (problem: string) => this.findings.push({ tool, args, problem: `${problem}${context}` });

    let r: ToolResult | 'hung';
    try {
      r = await withWatchdog(call(session, tool, args));
    } catch (err) {
      note(`call threw: ${String(err)}`);
      return false;
    }
    if (r === 'hung') {
      note(`no result after ${WATCHDOG_MS / 1000} s`);
      this.hung = true;
      return false;
    }

    const top = readdirSync(root).sort();
    const strays = readdirSync(outsideDir);
    const secret = createHash('sha256')
      .update(readFileSync(join(root, 'secret.png')))
      .digest('hex');
    if (top.join() !== 'outside,secret.png,ws' || strays.length || secret !== this.fx.secret) {
      note(`files outside the workspace: ${top.join(', ')} / outside: ${strays.join(', ')}`);
    }
    if (!r.ok) {
      const { code, message } = r.error;
      if (!CODES.has(code)) {
        const err = this.internals[0];
        const stack = err instanceof Error ? (err.stack ?? '').split('\n').slice(0, 4).join(' | ') : '';
        note(`code ${code}: ${message} ${stack}`);
      }
      if (typeof message !== 'string' || !CHINESE.test(message))
        note(`message not Chinese: ${shown(message)}`);
      if (session.editor.snapshot !== before || hashEditor(session.editor.snapshot) !== hash) {
        note(`failed (${code}) but changed a document`);
      }
      if (session.garment !== garment || session.garmentPhoto !== garmentPhoto) {
        note(`failed (${code}) but changed the garment memory`);
      }
      const diff = sameTree(treeBefore, listTree(ws));
      if (diff) note(`failed (${code}) but changed the workspace: ${diff}`);
      return false;
    }
    const def = findTool(tool);
    if (def?.effect === 'read' && !def.changesContext && hashEditor(session.editor.snapshot) !== hash) {
      note('a read-only tool changed a document');
    }
    if (draw === 0) {
      try {
        const psds = await session.inspect(async (tx) => {
          const out: { doc: string; psd: Buffer }[] = [];
          for (const doc of tx.documents()) {
            const composite = tx.composite(doc.id);
            out.push({ doc: doc.name, psd: (await encodePsd(doc.state, composite)).buffer });
          }
          return out;
        });
        for (const p of psds) this.samples.push({ tool, args, ...p });
      } catch (err) {
        note(`succeeded, then the documents do not composite or save: ${String(err)}`);
      }
    }
    return true;
  }

  /** Every sampled PSD through psd-tools at once: one interpreter start, not one per file. */
  async checkSamples(): Promise<void> {
    if (!psdToolsAvailable() || !this.samples.length) return;
    const dir = join(this.fx.root, 'psd-check');
    mkdirSync(dir);
    for (const [i, s] of this.samples.entries()) writeFileSync(join(dir, `${i}.psd`), s.psd);
    const script = [
      'import sys, json',
      'from psd_tools import PSDImage',
      'bad = {}',
      'for i in range(int(sys.argv[2])):',
      '    try:',
      '        p = PSDImage.open(f"{sys.argv[1]}/{i}.psd")',
      '        list(p.descendants()); p.composite()',
      '    except Exception as e:',
      '        bad[i] = repr(e)[:300]',
      'print(json.dumps(bad))',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      SYSTEM_PYTHON,
      ['-c', script, dir, String(this.samples.length)],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    for (const [i, why] of Object.entries(JSON.parse(stdout) as Record<string, string>)) {
      const s = this.samples[Number(i)]!;
      this.findings.push({
        tool: s.tool,
        args: s.args,
        problem: `psd-tools cannot open “${s.doc}” after it: ${why}`,
      });
    }
    rmSync(dir, { recursive: true, force: true });
  }

  /** Back to the fixture: its documents, garment memory and files. */
  reset(base: 'main' | 'garment' | 'cmyk' = 'main'): void {
    const { state, garmentState, cmykState } = this.fx;
    this.fx.session.restore(base === 'garment' ? garmentState : base === 'cmyk' ? cmykState : state);
    if (sameTree(this.fx.files, listTree(this.fx.ws))) restoreFiles(this.fx.ws, this.fx.files);
  }

  report(): string {
    return this.findings.map((f) => `${f.tool} ${shown(f.args)}\n    → ${f.problem}`).join('\n');
  }
}

const SAVED_ENV = {
  base: process.env.ATELIER_VISION_BASE_URL,
  model: process.env.ATELIER_VISION_MODEL,
};

describe('fuzzing every tool through a real session', () => {
  let fx: Fixture;
  const tools = toolsOf('extended');
  beforeAll(async () => {
    // The builtin garment analysis only: no call may reach a network service.
    delete process.env.ATELIER_VISION_BASE_URL;
    delete process.env.ATELIER_VISION_MODEL;
    fx = await buildFixture();
  });
  afterAll(() => {
    if (SAVED_ENV.base !== undefined) process.env.ATELIER_VISION_BASE_URL = SAVED_ENV.base;
    if (SAVED_ENV.model !== undefined) process.env.ATELIER_VISION_MODEL = SAVED_ENV.model;
    if (fx) rmSync(fx.root, { recursive: true, force: true });
  });

  it('keeps every promise on bad and edge input for every tool', { timeout: 600_000 }, async () => {
    expect(tools.length).toBeGreaterThan(80);
    const checker = new Checker(fx, tools.length * RUNS_PER_TOOL);
    let succeeded = 0;
    for (const [t, tool] of tools.entries()) {
      const garment = tool.group === 'B' || tool.name === 'confirm_piece_parts';
      for (const [i, args] of fc
        .sample(argsArb(tool), { seed: SEED + t, numRuns: RUNS_PER_TOOL })
        .entries()) {
        // Every fourth call of the other tools works on the CMYK document.
        checker.reset(garment ? 'garment' : i % 4 === 3 ? 'cmyk' : 'main');
        if (await checker.run(tool.name, args)) succeeded++;
        if (checker.hung) break;
      }
      if (checker.hung) break;
    }
    await checker.checkSamples();
    expect(checker.findings, `\n${checker.report()}\n`).toEqual([]);
    // The run exercised the tools, not only their validation.
    expect(succeeded).toBeGreaterThan(tools.length * 5);
    expect(checker.samples.length).toBeGreaterThan(20);
  });

  it('keeps them along chains of calls, each on what the last one left', { timeout: 600_000 }, async () => {
    const step = fc.oneof(
      ...tools.map((tool) =>
        fc
          .oneof(
            {
              arbitrary: objectArb(tool.parameters.properties, tool.parameters.required, tool.limits),
              weight: 4,
            },
            invalidArb(tool),
          )
          .map((args) => ({ tool: tool.name, args })),
      ),
    );
    const chains = fc.sample(
      fc.tuple(fc.boolean(), fc.array(step, { minLength: CHAIN_LENGTH, maxLength: CHAIN_LENGTH })),
      {
        seed: SEED,
        numRuns: CHAINS,
      },
    );
    const checker = new Checker(fx, CHAINS * CHAIN_LENGTH);
    for (const [c, [garment, steps]] of chains.entries()) {
      // Some chains start where the garment workflow's later steps can run.
      checker.reset(garment ? 'garment' : 'main');
      const done: string[] = garment ? ['(garment photo, pieces and preview)'] : [];
      for (const { tool, args } of steps) {
        await checker.run(tool, args, `\n    after: ${done.join(' → ') || '(the fixture)'} (chain ${c})`);
        done.push(`${tool} ${shown(args)}`);
        if (checker.hung) break;
      }
      if (checker.hung) break;
    }
    await checker.checkSamples();
    expect(checker.findings, `\n${checker.report()}\n`).toEqual([]);
  });
});
