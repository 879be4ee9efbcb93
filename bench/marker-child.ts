/**
 * A 9000 × 18000 px garment marker (a 60 × 120 in sheet at 150 DPI) with 30 piece layers of about
 * 2000 × 3000 px, built through tool calls; prints peak RSS against the layers' own pixel bytes plus one
 * composite. Runs in its own process so the peak is this document's alone.
 *
 * `marker-child.ts save FILE` then saves it as PSD (save_document_as) and `marker-child.ts open FILE`, in a fresh
 * process, opens that file (open_document): each prints the peak RSS of that call alone (Linux's VmHWM, reset
 * just before it through /proc/self/clear_refs) and its time.
 */
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { Session } from '../src/calls/session.js';
import { peakSince, resetPeak } from './peak-rss.js';
import { mib, ratio, scratchDir } from './util.js';

const [phase, file] = process.argv.slice(2);
const ws = scratchDir('marker');
const session = new Session({ workspace: ws });
const must = async (name: string, args: Record<string, unknown>) => {
  const r = await session.call({ name, arguments: args });
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r;
};

const [pw, ph] = [2000, 3000];
const layersBytes = 30 * pw * ph * 4;
const compositeBytes = 9000 * 18000 * 4;
const budget = layersBytes + compositeBytes;
const budgetText = `layers ${mib(layersBytes)} + composite ${mib(compositeBytes)} = ${mib(budget)}`;

/** Runs `call`, printing its peak RSS and time against the document's own pixel bytes. */
async function measured(what: string, call: () => Promise<unknown>): Promise<void> {
  resetPeak();
  const before = process.memoryUsage.rss();
  const t = performance.now();
  await call();
  const seconds = (performance.now() - t) / 1000;
  const peak = peakSince();
  console.log(
    `marker ${what}: ${seconds.toFixed(1)} s, peak RSS ${mib(peak)} (${mib(before)} before it); ${budgetText}; ratio ${ratio(peak, budget)} (target ≤ 1.3×)`,
  );
}

if (phase === 'open') {
  copyFileSync(file!, join(ws, 'marker.psd'));
  await measured(`open PSD (${mib(statSync(file!).size)})`, () =>
    must('open_document', { path: 'marker.psd' }),
  );
} else {
  // A piece: an opaque ellipse-ish shape on transparency.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}"><ellipse cx="${pw / 2}" cy="${ph / 2}" rx="${pw / 2}" ry="${ph / 2}" fill="#c8503c"/></svg>`;
  await sharp(Buffer.from(svg)).png().toFile(join(ws, 'piece.png'));

  await must('create_document', { width: 9000, height: 18000, name: 'marker' });
  for (let i = 0; i < 30; i++) {
    await must('place_image', { path: 'piece.png', name: `piece-${i}` });
    await must('rasterize_layer', { name: `piece-${i}` });
    await must('move_layer', {
      name: `piece-${i}`,
      dx: -3500 + (i % 4) * 2200,
      dy: -7500 + Math.floor(i / 4) * 1900,
    });
    if (i % 3 === 0) await must('set_layer_blend_mode', { name: `piece-${i}`, mode: 'multiply' });
  }
  await must('get_canvas_image', { max_size: 1024 });
  await must('set_layer_opacity', { name: 'piece-7', opacity: 50 });
  await must('get_canvas_image', { max_size: 1024 });

  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `marker 9000×18000, 30 pieces 2000×3000: peak RSS ${mib(peak)}; ${budgetText}; ratio ${ratio(peak, budget)} (target ≤ 1.5×)`,
  );
  if (phase === 'save') {
    await measured('save PSD', () => must('save_document_as', { path: 'marker.psd' }));
    copyFileSync(join(ws, 'marker.psd'), file!);
  }
}
