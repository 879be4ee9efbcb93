/**
 * Memory figures for the document model: metadata-only edits copy no pixels, history charges only the
 * buffers that changed, and a garment marker stays near its own pixel bytes. The peak-RSS figure runs
 * in a fresh child process so nothing else in this run inflates it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { Session } from '../src/calls/session.js';
import type { EditorState } from '../src/engine/editor.js';
import { deltaMib, mib, ratio, scratchDir } from './util.js';

/** Bytes of distinct pixel buffers reachable from every history state of every document. */
export function historyBytes(editor: EditorState): number {
  const seen = new Set<ArrayBufferLike>();
  let bytes = 0;
  for (const doc of editor.docs) {
    for (const state of doc.history.states) {
      for (const layer of state.layers.values()) {
        for (const r of [
          (layer as { raster?: { data: Uint8ClampedArray } }).raster,
          (layer as { source?: { data: Uint8ClampedArray } }).source,
          layer.mask,
        ]) {
          if (r && !seen.has(r.data.buffer)) {
            seen.add(r.data.buffer);
            bytes += r.data.byteLength;
          }
        }
      }
    }
  }
  return bytes;
}

async function noisePng(ws: string, name: string, w: number, h: number): Promise<string> {
  await sharp({
    create: {
      width: w,
      height: h,
      channels: 4,
      background: { r: 90, g: 140, b: 200, alpha: 0.8 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png({ compressionLevel: 1 })
    .toFile(join(ws, name));
  return name;
}

async function must(session: Session, name: string, args: Record<string, unknown>) {
  const r = await session.call({ name, arguments: args });
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r;
}

export async function benchMemory(): Promise<string[]> {
  const ws = scratchDir('mem');
  const session = new Session({ workspace: ws });
  await must(session, 'create_document', { width: 4000, height: 4000 });
  const file = await noisePng(ws, 'noise.png', 4000, 4000);
  for (let i = 0; i < 3; i++) {
    await must(session, 'place_image', { path: file, name: `L${i}` });
    await must(session, 'rasterize_layer', { name: `L${i}` });
  }
  const layerBytes = 4000 * 4000 * 4;
  const lines: string[] = [];

  global.gc?.();
  const meta0 = historyBytes(session.editor.snapshot);
  // `external`, not `arrayBuffers`: layer buffers are growable SharedArrayBuffers, which V8 counts (through
  // their weights, src/engine/raster.ts) in external memory only.
  const ab0 = process.memoryUsage().external;
  const metadataCalls: [string, Record<string, unknown>][] = [
    ['move_layer', { name: 'L1', dx: 10, dy: -5 }],
    ['set_layer_opacity', { name: 'L1', opacity: 60 }],
    ['set_layer_blend_mode', { name: 'L1', mode: 'multiply' }],
    ['set_layer_visible', { name: 'L2', visible: false }],
    ['lock_layer', { name: 'L0', locked: true }],
    ['lock_layer', { name: 'L0', locked: false }],
  ];
  for (let round = 0; round < 5; round++) for (const [n, a] of metadataCalls) await must(session, n, a);
  global.gc?.();
  const meta1 = historyBytes(session.editor.snapshot);
  const ab1 = process.memoryUsage().external;
  lines.push(
    `metadata-only: 30 calls (move, opacity, blend, visibility, lock) on 4000×4000 layers: pixel bytes in history ${mib(meta0)} → ${mib(meta1)} (${deltaMib(meta1 - meta0)}; one layer is ${mib(layerBytes)}), process external memory ${deltaMib(ab1 - ab0)}`,
  );

  const before = historyBytes(session.editor.snapshot);
  for (let i = 0; i < 20; i++) {
    await must(session, 'flip_layer', { name: `L${i % 3}`, direction: i % 2 ? 'vertical' : 'horizontal' });
  }
  const after = historyBytes(session.editor.snapshot);
  const expected = 20 * layerBytes;
  lines.push(
    `history: 20 pixel-changing calls (flip) on 4000×4000: history grew ${mib(after - before)}; changed buffers ${mib(expected)} (ratio ${ratio(after - before, expected)}; a full copy per step would be ${mib(20 * 4 * layerBytes)})`,
  );

  // The marker in a child process: built and saved as PSD, then opened by a second one (peaks and times of
  // the save and the open alone).
  const child = fileURLToPath(new URL('./marker-child.ts', import.meta.url));
  const psd = join(ws, 'marker.psd');
  for (const phase of ['save', 'open']) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, phase, psd], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    lines.push(...out.trim().split('\n'));
  }
  return lines;
}
