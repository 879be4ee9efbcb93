/**
 * PSD work off the main thread (psd-thread.ts, with the real worker): what the worker writes and reads is what
 * encodePsd and decodePsd give on the calling thread, errors included; the event loop keeps turning while it
 * works; and when the worker is off or lost, the calling thread does the work.
 */
import { writePsdBuffer } from 'ag-psd';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EditorError } from '../../../src/engine/errors.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import {
  decodePsdOffThread,
  encodePsdOffThread,
  psdThreadReady,
  psdThreadStarted,
  psdThreadStats,
  setPsdThreadIdleStop,
  setPsdThreadMode,
  stopPsdThread,
} from '../../../src/engine/io/psd-thread.js';
import type { DocState, Raster } from '../../../src/engine/model.js';
import { allocMask, allocPixels, isSharedBuffer } from '../../../src/engine/raster.js';
import { psdToolsAvailable, readWithPsdTools } from '../../support/psd-tools.js';
import { rng } from '../../support/rng.js';
import { doc, fill, pixel } from '../composite/support.js';
import { buildRichDoc, DocBuilder, ramp, testComposite, treeOf } from './psd-fixtures.js';

/** Random pixels in shared memory, as the engine allocates them. */
function noise(r: { x: number; y: number; w: number; h: number }, seed: number): Raster {
  const rand = rng(seed);
  const data = allocPixels(r.w * r.h * 4);
  for (let i = 0; i < data.length; i++) data[i] = rand() * 256;
  return { ...r, data };
}

/** A large document (side × side): a white background, a full-canvas noise layer and a masked one. */
function largeDoc(side: number): { state: DocState; composite: Raster } {
  const full = { x: 0, y: 0, w: side, h: side };
  const half = { x: side / 4, y: side / 4, w: side / 2, h: side / 2 };
  const mask = { ...half, data: allocMask(half.w * half.h).fill(128), outside: 0 as const, enabled: true };
  const layers = [
    { ...fill(1, { r: 255, g: 255, b: 255 }), background: true },
    pixel(2, noise(full, 1), { name: '噪点' }),
    pixel(3, noise(half, 2), { name: '蒙版', blend: 'multiply', mask }),
  ];
  return { state: doc(side, side, layers, [1, 2, 3]), composite: noise(full, 3) };
}

/** How many times the event loop turned (setImmediate callbacks ran) while `work` was awaited. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    turns++;
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    spinning = false;
  }
}

/** The error a promise rejects with. */
function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.unreachable('should have failed'),
    (err: unknown) => err,
  );
}

function expectSameError(theirs: unknown, ours: unknown): void {
  expect(ours).toBeInstanceOf(EditorError);
  expect(theirs).toBeInstanceOf(EditorError);
  const fields = (e: unknown) => {
    const { code, message, hint, details } = e as EditorError;
    return { code, message, hint, details };
  };
  expect(fields(theirs)).toEqual(fields(ours));
}

const SIDE = 2048;
let large: { state: DocState; composite: Raster };
let largeBytes: Buffer;

beforeAll(async () => {
  expect(await psdThreadReady()).toBe(true);
  large = largeDoc(SIDE);
  largeBytes = (await encodePsd(large.state, large.composite)).buffer;
});

afterEach(() => {
  setPsdThreadMode('auto');
  delete process.env.ATELIER_PSD_WORKER;
});

describe('a PSD written or read by the worker', () => {
  it('is byte for byte the file written on the main thread, for a large document', async () => {
    const before = psdThreadStats();
    const { buffer, warnings } = await encodePsdOffThread(large.state, large.composite, { name: '大图' });
    expect(psdThreadStats().worker).toBe(before.worker + 1);
    expect(Buffer.isBuffer(buffer)).toBe(true);
    expect(warnings).toEqual([]);
    expect(buffer.equals(largeBytes)).toBe(true);
  });

  it('reads back as the same document, its pixels in shared memory', async () => {
    const before = psdThreadStats();
    const theirs = await decodePsdOffThread(largeBytes);
    expect(psdThreadStats().worker).toBe(before.worker + 1);
    const ours = await decodePsd(largeBytes);
    expect(theirs.warnings).toEqual(ours.warnings);
    expect(treeOf(theirs.state)).toEqual(treeOf(ours.state));
    for (const layer of theirs.state.layers.values()) {
      if (layer.kind === 'pixel') expect(isSharedBuffer(layer.raster.data), layer.name).toBe(true);
      if (layer.mask) expect(isSharedBuffer(layer.mask.data), layer.name).toBe(true);
    }
  });

  it('keeps every construct of the rich test document: our decoder and psd-tools read the same', async () => {
    setPsdThreadMode('always');
    const state = buildRichDoc();
    const theirs = await encodePsdOffThread(state, testComposite(), { name: '测试' });
    const ours = await encodePsd(state, testComposite(), { name: '测试' });
    expect(theirs.warnings).toEqual(ours.warnings);
    // The smart object's embedded file gets a random id, so the bytes differ there; what they mean must not.
    const back = await decodePsdOffThread(theirs.buffer);
    const reference = await decodePsd(ours.buffer);
    expect(back.warnings).toEqual(reference.warnings);
    expect(treeOf(back.state)).toEqual(treeOf(reference.state));
    if (psdToolsAvailable()) {
      const [a, b] = await Promise.all([readWithPsdTools(theirs.buffer), readWithPsdTools(ours.buffer)]);
      expect(a.dump).toEqual(b.dump);
    }
  });

  it('gives the warnings the calling thread gives, saving and opening', async () => {
    setPsdThreadMode('always');
    const b = new DocBuilder();
    // A pass-through blend on a pixel layer is saved as normal, with a warning.
    const passThrough = b.state([
      b.pixel('a', ramp(0, 0, 4, 4, { r: 1, g: 2, b: 3 }), { blend: 'pass through' }),
    ]);
    const saved = await encodePsdOffThread(passThrough, testComposite(), { name: '印刷' });
    expect(saved.warnings).toEqual(
      (await encodePsd(passThrough, testComposite(), { name: '印刷' })).warnings,
    );
    expect(saved.warnings).toHaveLength(1);

    const data = new Uint8ClampedArray(4 * 4 * 4).fill(200);
    const file = writePsdBuffer({
      width: 8,
      height: 8,
      children: [
        {
          name: '浮雕',
          imageData: { width: 4, height: 4, data },
          fillOpacity: 0.5,
          effects: { bevel: { enabled: true, size: { units: 'Pixels', value: 3 } } },
        },
      ],
    });
    const opened = await decodePsdOffThread(file);
    expect(opened.warnings).toEqual((await decodePsd(file)).warnings);
    // The bevel is kept and not drawn, with a warning; the fill opacity is kept (and crosses from the worker): the
    // byte 127, as ag-psd truncates 0.5 × 255.
    expect(opened.warnings).toHaveLength(1);
    expect([...opened.state.layers.values()][0]?.fillOpacity).toBe(127 / 255);
  });
});

describe('the main thread while the worker works', () => {
  it('keeps turning its event loop during a large save and a large open', async () => {
    const before = psdThreadStats();
    const saved = await turnsDuring(() => encodePsdOffThread(large.state, large.composite));
    const opened = await turnsDuring(() => decodePsdOffThread(largeBytes));
    expect(saved.turns).toBeGreaterThan(10);
    expect(opened.turns).toBeGreaterThan(10);
    expect(psdThreadStats().worker).toBe(before.worker + 2);
  });

  it('(the same measure stands still when the work is done on the main thread)', async () => {
    setPsdThreadMode('off');
    const saved = await turnsDuring(() => encodePsdOffThread(large.state, large.composite));
    expect(saved.turns).toBeLessThanOrEqual(1);
  });
});

describe('work on the calling thread', () => {
  it('when the worker is off, by mode or by ATELIER_PSD_WORKER=0, and for small documents', async () => {
    const b = new DocBuilder();
    const small = b.state([b.pixel('a', ramp(0, 0, 4, 4, { r: 1, g: 2, b: 3 }))]);
    const smallBytes = (await encodePsd(small, testComposite())).buffer;

    let before = psdThreadStats();
    expect((await encodePsdOffThread(small, testComposite())).buffer.equals(smallBytes)).toBe(true);
    expect(psdThreadStats()).toMatchObject({ worker: before.worker, here: before.here + 1 });

    process.env.ATELIER_PSD_WORKER = '0';
    before = psdThreadStats();
    expect((await encodePsdOffThread(large.state, large.composite)).buffer.equals(largeBytes)).toBe(true);
    expect(psdThreadStats()).toMatchObject({ worker: before.worker, here: before.here + 1 });
    delete process.env.ATELIER_PSD_WORKER;

    setPsdThreadMode('off');
    before = psdThreadStats();
    const back = await decodePsdOffThread(largeBytes);
    expect(treeOf(back.state)).toEqual(treeOf((await decodePsd(largeBytes)).state));
    expect(psdThreadStats()).toMatchObject({ worker: before.worker, here: before.here + 1 });
  });

  it('when the worker dies during a job: the job is done here, and the next one gets a new worker', async () => {
    setPsdThreadMode('always');
    const before = psdThreadStats();
    const saving = encodePsdOffThread(large.state, large.composite);
    await stopPsdThread();
    expect((await saving).buffer.equals(largeBytes)).toBe(true);
    expect(psdThreadStats()).toMatchObject({ worker: before.worker, recovered: before.recovered + 1 });

    const again = await encodePsdOffThread(large.state, large.composite);
    expect(again.buffer.equals(largeBytes)).toBe(true);
    expect(psdThreadStats().worker).toBe(before.worker + 1);
  });

  it('when the worker has been idle: it is stopped, and the next large job starts another', async () => {
    try {
      setPsdThreadIdleStop(300);
      await encodePsdOffThread(large.state, large.composite);
      expect(psdThreadStarted()).toBe(true);
      await new Promise((r) => setTimeout(r, 900));
      expect(psdThreadStarted()).toBe(false);
      const before = psdThreadStats();
      expect((await encodePsdOffThread(large.state, large.composite)).buffer.equals(largeBytes)).toBe(true);
      expect(psdThreadStats()).toMatchObject({ worker: before.worker + 1, here: before.here });
      expect(psdThreadStarted()).toBe(true);
    } finally {
      setPsdThreadIdleStop(120_000);
    }
  });
});

describe('errors from the worker', () => {
  it('keep the EditorError code, message and hint the calling thread gives', async () => {
    setPsdThreadMode('always');
    const notPsd = Buffer.from('not a psd at all, 不是 PSD');
    const truncated = largeBytes.subarray(0, Math.floor(largeBytes.length / 2));
    const cases: [string, () => Promise<unknown>, () => Promise<unknown>, string][] = [
      ['not a PSD', () => decodePsdOffThread(notPsd), () => decodePsd(notPsd), 'unsupported'],
      ['truncated', () => decodePsdOffThread(truncated), () => decodePsd(truncated), 'io_error'],
      [
        'over the memory limit',
        () => decodePsdOffThread(largeBytes, { maxPixelBytes: 10_000 }),
        () => decodePsd(largeBytes, { maxPixelBytes: 10_000 }),
        'out_of_bounds',
      ],
    ];
    const tooWide: DocState = { ...large.state, width: 300_001 };
    const empty: DocState = { ...large.state, width: 0 };
    cases.push(
      [
        'too large to save',
        () => encodePsdOffThread(tooWide, large.composite, { name: '超大' }),
        () => encodePsd(tooWide, large.composite, { name: '超大' }),
        'out_of_bounds',
      ],
      [
        'no canvas',
        () => encodePsdOffThread(empty, large.composite),
        () => encodePsd(empty, large.composite),
        'invalid_state',
      ],
    );
    for (const [what, inWorker, here, code] of cases) {
      const before = psdThreadStats();
      const theirs = await failure(inWorker());
      expect(psdThreadStats().worker, what).toBe(before.worker + 1);
      expect((theirs as EditorError).code, what).toBe(code);
      expectSameError(theirs, await failure(here()));
    }
    const limited = (await failure(decodePsdOffThread(largeBytes, { maxPixelBytes: 10_000 }))) as EditorError;
    expect(limited.hint).toBeTruthy();
  });
});
