/**
 * Spot and alpha channels kept from a Photoshop file to the file saved: read by psd-tools (an independent reader)
 * from both, byte for byte; moved, cut and resampled with the canvas (ImageMagick the reference for resampling);
 * carried through the session's journal. The files are Photoshop's, from psd-tools' test files
 * (test/fixtures/psd-tools/README.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { RES_ALTERNATE_SPOT_COLOURS, withoutChannel } from '../../src/engine/io/psd-channels.js';
import type { DocState } from '../../src/engine/model.js';
import { BufferNames, decodeState, encodeState } from '../../src/service/state-codec.js';
import { convertTo } from '../support/imagemagick.js';
import { readPdf } from '../support/poppler.js';
import { psdChannels } from '../support/psd-channels.js';
import { call, newSession, ok, tempDir } from '../support/session.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/psd-tools/${name}`, import.meta.url));
const warningsOf = (r: Record<string, unknown>): string[] => (r.warnings as string[] | undefined) ?? [];

async function opened(file: string): Promise<{ s: Session; result: Record<string, unknown> }> {
  const s = newSession();
  await s.workspace.writeAtomic(file, fixture(file));
  return { s, result: await ok(s, 'open_document', { path: file }) };
}

async function savedAs(s: Session, path: string) {
  await ok(s, 'save_document_as', { path });
  return psdChannels(await s.workspace.read(path));
}

function current(s: Session): DocState {
  const { editor } = s.state;
  const doc = editor.docs.find((d) => d.id === editor.active)!;
  return doc.history.states[doc.history.index]!;
}

/** The channels after the colour channels and the transparency, by name. */
function extras(p: Awaited<ReturnType<typeof psdChannels>>): Map<string, Uint8Array> {
  const colour = p.mode === 4 ? 4 : 3;
  const out = new Map<string, Uint8Array>();
  p.names.forEach((name, i) => {
    if (name !== 'Transparency') out.set(name, p.planes[colour + i]!);
  });
  return out;
}

/** `plane` (w × h) cut to the rectangle at x, y of size cw × ch. */
function cut(plane: Uint8Array, w: number, x: number, y: number, cw: number, ch: number): Uint8Array {
  const out = new Uint8Array(cw * ch);
  for (let r = 0; r < ch; r++) out.set(plane.subarray((y + r) * w + x, (y + r) * w + x + cw), r * cw);
  return out;
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('spot and alpha channels', () => {
  it('keeps a CMYK file’s three spot plates through open, an edit and save, byte for byte', async () => {
    const original = await psdChannels(fixture('cmyk-spot.psd'));
    const { s, result } = await opened('cmyk-spot.psd');
    expect(warningsOf(result)).toContainEqual(
      expect.stringMatching(/3 个专色或 Alpha 通道：“blue”、“fluorescent pink”、“yellow”。已保留/),
    );
    expect(result.losses ?? []).toEqual([]);
    const info = await ok(s, 'get_document_info');
    expect(info.channels).toEqual([
      { name: 'blue', kind: 'spot' },
      { name: 'fluorescent pink', kind: 'spot' },
      { name: 'yellow', kind: 'spot' },
    ]);
    await ok(s, 'create_layer', { name: '标注' });
    await ok(s, 'select_rect', { left: 10, top: 10, right: 50, bottom: 30 });
    await ok(s, 'fill_selection', { color: '#00a0e0' });
    const saved = await savedAs(s, 'saved.psd');
    // Four inks and three spot plates: the first spot plate is not read as the transparency (it was: the
    // flattened file opened with holes where the blue ink is, and was saved with a fifth channel).
    expect(saved.channels).toBe(7);
    // The file's inks are blank (the picture is all spot colour): read as such, not from the spot plates' row
    // counts (which were read as rows, filling the canvas with cyan), and written back blank outside the fill.
    for (let c = 0; c < 4; c++) {
      expect(saved.planes[c]!.subarray(40 * 640).every((v) => v === 255)).toBe(true);
      expect(saved.planes[c]!.subarray(0, 40 * 640).some((v) => v !== 255)).toBe(c < 2); // cyan and magenta
    }
    expect(saved.names).toEqual(original.names);
    expect(saved.display).toBe(original.display);
    for (const [name, plane] of extras(original))
      expect(equalBytes(extras(saved).get(name)!, plane)).toBe(true);
    // As a PSB (32-bit row counts) too.
    const large = await savedAs(s, 'saved.psb');
    expect(large.names).toEqual(original.names);
    for (const [name, plane] of extras(original))
      expect(equalBytes(extras(large).get(name)!, plane)).toBe(true);
    // Saved again and opened again: the same plates.
    const { s: again } = await opened('cmyk-spot.psd');
    await again.workspace.writeAtomic('second.psd', await s.workspace.read('saved.psd'));
    await ok(again, 'open_document', { path: 'second.psd' });
    const third = await savedAs(again, 'third.psd');
    for (const [name, plane] of extras(original))
      expect(equalBytes(extras(third).get(name)!, plane)).toBe(true);
  });

  it('shows the spot plates on the canvas in their inks, and exports the colour channels only', async () => {
    const original = await psdChannels(fixture('cmyk-spot.psd'));
    const { s } = await opened('cmyk-spot.psd');
    const view = await ok(s, 'get_canvas_image', { max_size: 640 });
    const png = Buffer.from((view.images as { base64: string }[])[0]!.base64, 'base64');
    const shown = await sharp(png).ensureAlpha().raw().toBuffer();
    // Each plate's display colour (resource 1077: colour space RGB, 16-bit words) at solidity 0 — a transparent
    // ink — multiplies the paper under it by 1 − a + a·ink, a its coverage (1 − value / 255).
    const display = Buffer.from(original.display!, 'hex');
    const inks = [0, 1, 2].map((k) =>
      [0, 1, 2].map((c) => display.readUInt16BE(4 + k * 13 + 2 + c * 2) / 65535),
    );
    let sum = 0;
    let most = 0;
    const plates = [...extras(original).values()];
    for (let p = 0; p < 640 * 637; p++) {
      for (let c = 0; c < 3; c++) {
        let v = 1;
        plates.forEach((plate, k) => {
          const a = 1 - plate[p]! / 255;
          v *= 1 - a + a * inks[k]![c]!;
        });
        const d = Math.abs(shown[p * 4 + c]! - v * 255);
        sum += d;
        most = Math.max(most, d);
      }
    }
    // Rounded after each plate: measured 0.16 of a level on average, 1.4 at most.
    expect(sum / (640 * 637 * 3)).toBeLessThan(0.5);
    expect(most).toBeLessThan(2);
    // Not white: the wheel's red, where pink and yellow overprint, is there.
    const red = shown.subarray((450 * 640 + 600) * 4, (450 * 640 + 600) * 4 + 3);
    expect(red[0]).toBeGreaterThan(150);
    expect(red[1]).toBeLessThan(120);
    // Shown smaller (a window's picture), the plates are scaled with the picture: the same wheel as at full size
    // averaged 2 × 2, within the difference of Lanczos and a box filter.
    const small = await ok(s, 'get_canvas_image', { max_size: 320 });
    const half = await sharp(Buffer.from((small.images as { base64: string }[])[0]!.base64, 'base64'))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([half.info.width, half.info.height]).toEqual([320, 319]);
    expect(meanDifference(half.data, halved(shown, 640, 637, 4), 4)).toBeLessThan(4);
    // A flattened export, as Photoshop's, holds the colour channels only: blank paper here.
    await ok(s, 'export_image', { path: 'flat.png' });
    const stats = await sharp(await s.workspace.read('flat.png')).stats();
    expect(stats.channels.slice(0, 3).every((c) => c.min === 255)).toBe(true);
  });

  it('exports a PDF whose spot plates are overprinted separations in their inks', async () => {
    const original = extras(await psdChannels(fixture('cmyk-spot.psd')));
    const { s } = await opened('cmyk-spot.psd');
    const exported = await ok(s, 'export_image', { path: 'wheel.pdf' });
    expect(warningsOf(exported)).toContainEqual(
      expect.stringMatching(/专色通道 “blue”、“fluorescent pink”、“yellow” 作为专色分色（叠印）输出/),
    );
    const read = await readPdf(await s.workspace.read('wheel.pdf'));
    // The picture in its ICC colours, then one single-component Separation image per plate (Poppler: 'sep').
    expect(read.images.map((i) => [i.color, i.components, i.width, i.height])).toEqual([
      ['icc', 4, 640, 637],
      ['sep', 1, 640, 637],
      ['sep', 1, 640, 637],
      ['sep', 1, 640, 637],
    ]);
    // Poppler draws each separation through its alternate colour: paper where the plate is white, the ink where
    // it is black (the Decode array reads the plate's bytes as ink). Checked at each plate's darkest pixel.
    const looks: ((c: number[]) => boolean)[] = [
      ([r, , b]) => b! > r! + 100, // blue
      ([r, g]) => r! > g! + 150, // fluorescent pink
      ([r, g, b]) => r! > 200 && g! > 200 && b! < 80, // yellow
    ];
    const plates = [...original.values()];
    for (let k = 0; k < 3; k++) {
      const picture = read.pictures[k + 1]!;
      const { data } = await sharp(picture.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const plate = plates[k]!;
      let darkest = 0;
      for (let p = 0; p < plate.length; p++) if (plate[p]! < plate[darkest]!) darkest = p;
      const white = plate.indexOf(255);
      expect([...data.subarray(white * 3, white * 3 + 3)]).toEqual([255, 255, 255]);
      expect(looks[k]!([...data.subarray(darkest * 3, darkest * 3 + 3)]), `plate ${k}`).toBe(true);
    }
    // Scaled, the plates are scaled with the picture: each as its full-size self averaged 2 × 2.
    await ok(s, 'export_image', { path: 'half.pdf', scale: 50 });
    const half = await readPdf(await s.workspace.read('half.pdf'));
    expect(half.images.map((i) => [i.color, i.width, i.height])).toEqual([
      ['icc', 320, 319],
      ['sep', 320, 319],
      ['sep', 320, 319],
      ['sep', 320, 319],
    ]);
    for (let k = 1; k <= 3; k++) {
      const full = await sharp(read.pictures[k]!.bytes).removeAlpha().raw().toBuffer();
      const small = await sharp(half.pictures[k]!.bytes).removeAlpha().raw().toBuffer();
      expect(meanDifference(small, halved(full, 640, 637, 3), 3), `plate ${k}`).toBeLessThan(4);
    }
  });

  it('keeps an RGB file’s alpha channel beside its transparency, which is no channel of its own', async () => {
    const original = await psdChannels(fixture('rgb-transparency-alpha.psd'));
    expect(original.names).toEqual(['Transparency', 'Alpha 1']);
    const { s, result } = await opened('rgb-transparency-alpha.psd');
    // The merged transparency Photoshop lists among the channels is not reported as a channel, nor as lost.
    expect(warningsOf(result).join('\n')).not.toMatch(/Transparency/);
    expect(warningsOf(result)).toContainEqual(
      expect.stringMatching(/1 个专色或 Alpha 通道：“Alpha 1”。已保留/),
    );
    expect((await ok(s, 'get_document_info')).channels).toEqual([{ name: 'Alpha 1', kind: 'alpha' }]);
    const saved = await savedAs(s, 'saved.psd');
    expect(saved.channels).toBe(5);
    expect(saved.names).toEqual(['Transparency', 'Alpha 1']);
    expect(saved.identifiers).toEqual(original.identifiers);
    expect(saved.display).toBe(original.display);
    expect(equalBytes(extras(saved).get('Alpha 1')!, extras(original).get('Alpha 1')!)).toBe(true);
  });

  it('reads the channel after the colours as an alpha channel when the file says it is not the transparency', async () => {
    // Photoshop's 4 × 4 file: two layers (a positive layer count) and "Alpha 1" as the merged image's fourth channel.
    const original = await psdChannels(fixture('rgb-alpha-channel.psd'));
    expect(original.channels).toBe(4);
    const { s } = await opened('rgb-alpha-channel.psd');
    expect(current(s).channels?.map((c) => c.name)).toEqual(['Alpha 1']);
    const saved = await savedAs(s, 'saved.psd');
    expect(saved.channels).toBe(4);
    expect(saved.names).toEqual(['Alpha 1']);
    expect(equalBytes(extras(saved).get('Alpha 1')!, extras(original).get('Alpha 1')!)).toBe(true);
  });

  it('reads a flattened 8- or 16-bit file’s alpha channel as a channel, not as the picture’s transparency', async () => {
    for (const depth of [8, 16] as const) {
      const w = 32;
      const h = 16;
      const mask = Uint8Array.from({ length: w * h }, (_, i) => (i % w) * 8);
      const s = newSession();
      await s.workspace.writeAtomic('flat.psd', flatRgbWithAlpha(w, h, depth, mask));
      const opened = await ok(s, 'open_document', { path: 'flat.psd' });
      expect(warningsOf(opened)).toContainEqual(expect.stringMatching(/“Mask A”。已保留/));
      const state = current(s);
      expect(state.channels?.map((c) => [c.name, c.kind, c.identifier])).toEqual([['Mask A', 'alpha', 7]]);
      // 16-bit samples keep their high byte, as the colour channels are brought to 8 bits.
      expect(equalBytes(state.channels![0]!.data, mask)).toBe(true);
      // ag-psd took the fourth channel for transparency: the picture was as transparent as the mask is dark.
      const pixel = await ok(s, 'get_pixel_color', { x: 0, y: 0 });
      expect([pixel.a, pixel.r, pixel.g, pixel.b]).toEqual([255, 200, 0, 40]);
      const saved = await savedAs(s, 'saved.psd');
      expect(saved.channels).toBe(4);
      expect(saved.names).toEqual(['Mask A']);
      expect(equalBytes(extras(saved).get('Mask A')!, mask)).toBe(true);
    }
  });

  it('loads an alpha channel as the selection, as Select > Load Selection does', async () => {
    const original = extras(await psdChannels(fixture('rgb-transparency-alpha.psd')));
    const plate = original.get('Alpha 1')!;
    const { s } = await opened('rgb-transparency-alpha.psd');
    const { width: W, height: H } = current(s);
    await ok(s, 'create_layer', { name: '填充' });
    const loaded = await ok(s, 'load_channel_selection', { channel: 'Alpha 1' });
    expect(loaded.channel).toBe('Alpha 1');
    await ok(s, 'fill_selection', { color: '#ff0000' });
    // The fill covers each pixel as much as the channel is white there (a grey pixel half selected, half filled).
    const filled = () => {
      const layer = [...current(s).layers.values()].find((l) => l.name === '填充')!;
      const r = (layer as { raster: { x: number; y: number; w: number; data: Uint8ClampedArray } }).raster;
      return (x: number, y: number) => {
        const lx = x - r.x;
        const ly = y - r.y;
        return lx >= 0 && ly >= 0 && lx < r.w && ly * r.w + lx < r.data.length / 4
          ? r.data[(ly * r.w + lx) * 4 + 3]!
          : 0;
      };
    };
    let most = 0;
    const alphaAt = filled();
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) most = Math.max(most, Math.abs(alphaAt(x, y) - plate[y * W + x]!));
    expect(most).toBeLessThanOrEqual(1);
    expect(plate.some((v) => v > 0 && v < 255)).toBe(true);
    // Inverted, and intersected with a marquee: the channel's black inside the rectangle only.
    await ok(s, 'undo');
    await ok(s, 'select_rect', { left: 0, top: 0, right: 30, bottom: H });
    await ok(s, 'load_channel_selection', { channel: 'Alpha 1', invert: true, mode: 'intersect' });
    await ok(s, 'fill_selection', { color: '#00ff00' });
    const inverted = filled();
    for (const [x, y] of [
      [5, 5],
      [20, 20],
      [40, 20],
      [60, 30],
    ] as const) {
      const expected = x < 30 ? 255 - plate[y * W + x]! : 0;
      expect(Math.abs(inverted(x, y) - expected), `${x},${y}`).toBeLessThanOrEqual(1);
    }
    // A channel that is not there, or a spot plate, is refused with the document as it was.
    const before = current(s);
    const missing = await call(s, 'load_channel_selection', { channel: '蒙版' });
    expect(missing.ok).toBe(false);
    expect(JSON.stringify(missing)).toMatch(/没有名为“蒙版”的通道.*“Alpha 1”/);
    expect(current(s)).toBe(before);
    const spot = await opened('cmyk-spot.psd');
    const refused = await call(spot.s, 'load_channel_selection', { channel: 'blue' });
    expect(JSON.stringify(refused)).toMatch(/“blue”是专色通道/);
  });

  it('saves the selection as an alpha channel, as Select > Save Selection does, which psd-tools reads back', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 64, height: 48, name: '存选区' });
    // No selection: refused, the document as it was.
    const none = current(s);
    const refused = await call(s, 'save_selection_as_channel', {});
    expect(JSON.stringify(refused)).toMatch(/没有选区，无法存储选区/);
    expect(current(s)).toBe(none);

    await ok(s, 'select_rect', { left: 8, top: 4, right: 40, bottom: 20 });
    const first = await ok(s, 'save_selection_as_channel', {});
    expect(first).toMatchObject({ channel: 'Alpha 1', created: true });
    // A feathered selection: grey where it is partly selected.
    await ok(s, 'select_rect', { left: 24, top: 16, right: 56, bottom: 44 });
    await ok(s, 'feather_selection', { radius: 4 });
    const feathered = current(s).selection!;
    expect((await ok(s, 'save_selection_as_channel', { channel: '柔边' })).channel).toBe('柔边');
    // Into an existing channel: added to it, then a marquee subtracted from it.
    await ok(s, 'select_rect', { left: 0, top: 40, right: 10, bottom: 48 });
    await ok(s, 'save_selection_as_channel', { channel: 'Alpha 1', mode: 'add' });
    await ok(s, 'select_rect', { left: 8, top: 4, right: 16, bottom: 20 });
    const subtracted = await ok(s, 'save_selection_as_channel', { channel: 'Alpha 1', mode: 'subtract' });
    expect(subtracted).toMatchObject({ channel: 'Alpha 1', created: false, mode: 'subtract' });
    expect(subtracted.channels).toEqual([
      { name: 'Alpha 1', kind: 'alpha' },
      { name: '柔边', kind: 'alpha' },
    ]);

    const read = await savedAs(s, 'saved-selection.psd');
    expect(read.names).toEqual(['Alpha 1', '柔边']);
    expect(new Set(read.identifiers).size).toBe(2);
    const planes = extras(read);
    const expected = new Uint8Array(64 * 48);
    for (let y = 0; y < 48; y++)
      for (let x = 0; x < 64; x++) {
        const marquee = x >= 8 && x < 40 && y >= 4 && y < 20 && !(x < 16);
        if (marquee || (x < 10 && y >= 40)) expected[y * 64 + x] = 255;
      }
    expect(equalBytes(planes.get('Alpha 1')!, expected)).toBe(true);
    // The feathered one is the selection's own bytes: grey along its edge.
    const soft = planes.get('柔边')!;
    for (const [x, y] of [
      [40, 30],
      [24, 30],
      [10, 30],
      [2, 2],
    ] as const) {
      const lx = x - feathered.x;
      const ly = y - feathered.y;
      const inRect = lx >= 0 && ly >= 0 && lx < feathered.w && ly < feathered.h;
      expect(soft[y * 64 + x], `${x},${y}`).toBe(
        inRect ? feathered.data[ly * feathered.w + lx] : feathered.outside,
      );
    }
    expect(soft[30 * 64 + 40]).toBe(255);
    expect(soft[30 * 64 + 24]! > 0 && soft[30 * 64 + 24]! < 255).toBe(true);

    // Reopened, the channels load as selections again; undo takes a saved channel away.
    const reopened = newSession();
    await reopened.workspace.writeAtomic(
      'saved-selection.psd',
      await s.workspace.read('saved-selection.psd'),
    );
    await ok(reopened, 'open_document', { path: 'saved-selection.psd' });
    expect(current(reopened).channels?.map((c) => c.name)).toEqual(['Alpha 1', '柔边']);
    await ok(reopened, 'load_channel_selection', { channel: 'Alpha 1' });
    expect(current(reopened).selection).not.toBeNull();
    // Back past the two saves into Alpha 1 and their marquees, and the save that made 柔边.
    for (let i = 0; i < 5; i++) await ok(s, 'undo');
    expect(current(s).channels?.map((c) => c.name)).toEqual(['Alpha 1']);
  });

  it('adds a saved selection to a print file beside its spot plates, which stay as they were, and beside Photoshop’s alpha channel', async () => {
    const original = await psdChannels(fixture('cmyk-spot.psd'));
    const { s } = await opened('cmyk-spot.psd');
    await ok(s, 'select_rect', { left: 100, top: 100, right: 300, bottom: 200 });
    // A spot plate is ink, not a selection: refused, the document as it was.
    const before = current(s);
    const spot = await call(s, 'save_selection_as_channel', { channel: original.names[0]! });
    expect(JSON.stringify(spot)).toMatch(/是专色通道/);
    expect(current(s)).toBe(before);
    await ok(s, 'save_selection_as_channel', {});
    const read = await savedAs(s, 'with-alpha.psd');
    expect(read.names).toEqual([...original.names, 'Alpha 1']);
    const was = extras(original);
    const now = extras(read);
    for (const [name, plane] of was) expect(equalBytes(now.get(name)!, plane)).toBe(true);
    const alpha = now.get('Alpha 1')!;
    expect(alpha[150 * original.width + 200]).toBe(255);
    expect(alpha[50 * original.width + 50]).toBe(0);
    // Beside a channel with Photoshop's identifier: named after it, with an identifier of its own.
    const rgb = await opened('rgb-transparency-alpha.psd');
    await ok(rgb.s, 'select_all');
    expect((await ok(rgb.s, 'save_selection_as_channel', {})).channel).toBe('Alpha 2');
    const both = await savedAs(rgb.s, 'two-alphas.psd');
    expect(both.names).toEqual(['Transparency', 'Alpha 1', 'Alpha 2']);
    expect(both.identifiers).toEqual([0, 10, 11]);
    expect(
      extras(both)
        .get('Alpha 2')!
        .every((v) => v === 255),
    ).toBe(true);
  });

  it('deletes a spot plate or an alpha channel, the others kept byte for byte, and undo brings it back', async () => {
    const original = await psdChannels(fixture('cmyk-spot.psd'));
    const { s } = await opened('cmyk-spot.psd');
    // A colour channel, or a name the document does not have: refused, naming the channels there are.
    const before = current(s);
    for (const name of ['Cyan', '粉色']) {
      const refused = await call(s, 'delete_channel', { channel: name });
      expect(JSON.stringify(refused)).toMatch(/“blue”、“fluorescent pink”、“yellow”；颜色通道不能删除/);
      expect(current(s)).toBe(before);
    }
    const deleted = await ok(s, 'delete_channel', { channel: 'fluorescent pink' });
    expect(deleted.deleted).toEqual({ name: 'fluorescent pink', kind: 'spot' });
    const read = await savedAs(s, 'two-plates.psd');
    expect(read.channels).toBe(6);
    expect(read.names).toEqual(['blue', 'yellow']);
    const was = extras(original);
    const now = extras(read);
    for (const name of ['blue', 'yellow']) expect(equalBytes(now.get(name)!, was.get(name)!)).toBe(true);
    await ok(s, 'undo');
    expect(extras(await savedAs(s, 'three-plates.psd')).size).toBe(3);
    // The last channel of a file gone: its transparency stays, with no channel names left to write.
    const rgb = await opened('rgb-transparency-alpha.psd');
    await ok(rgb.s, 'delete_channel', { channel: 'Alpha 1' });
    const bare = await savedAs(rgb.s, 'no-alpha.psd');
    expect(bare.channels).toBe(4);
    expect(extras(bare).size).toBe(0);
  });

  it('takes a deleted plate’s entry out of the alternate spot colours, which name plates by identifier', () => {
    // Version 1, two entries: identifier, then a colour structure (space word and four colour words).
    const table = Uint8Array.of(
      0,
      1,
      0,
      2,
      0,
      0,
      0,
      4,
      0,
      7,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0,
      0,
      0,
      9,
      0,
      7,
      9,
      9,
      9,
      9,
      9,
      9,
      9,
      9,
    );
    const halftones = { id: 1043, data: Uint8Array.of(1, 2, 3) };
    const [alternates, kept] = withoutChannel(
      [{ id: RES_ALTERNATE_SPOT_COLOURS, data: table }, halftones],
      4,
    );
    expect([...alternates!.data]).toEqual([0, 1, 0, 1, ...table.subarray(18)]);
    expect(kept).toBe(halftones);
  });

  it('moves, cuts and blanks the channels with the canvas, and undo brings them back', async () => {
    const original = extras(await psdChannels(fixture('cmyk-spot.psd')));
    const { s } = await opened('cmyk-spot.psd');
    const W = 640;
    const H = 637;
    await ok(s, 'resize_canvas', { width: W + 40, height: H + 20, anchor: 'center' });
    const grown = extras(await savedAs(s, 'grown.psd'));
    for (const [name, plane] of original) {
      const g = grown.get(name)!;
      expect(g.length).toBe((W + 40) * (H + 20));
      expect(equalBytes(cut(g, W + 40, 20, 10, W, H), plane)).toBe(true);
      // The new margin carries no ink (255, white in the Channels panel).
      expect(cut(g, W + 40, 0, 0, W + 40, 10).every((v) => v === 255)).toBe(true);
      expect(cut(g, W + 40, 0, 0, 20, H + 20).every((v) => v === 255)).toBe(true);
    }
    await ok(s, 'undo');
    await ok(s, 'crop_document', { left: 100, top: 50, right: 400, bottom: 300 });
    const cropped = extras(await savedAs(s, 'cropped.psd'));
    for (const [name, plane] of original) {
      expect(equalBytes(cropped.get(name)!, cut(plane, W, 100, 50, 300, 250))).toBe(true);
    }
    await ok(s, 'undo');
    expect(current(s).channels?.every((c) => c.data.length === W * H)).toBe(true);
    const back = extras(await savedAs(s, 'back.psd'));
    for (const [name, plane] of original) expect(equalBytes(back.get(name)!, plane)).toBe(true);
  });

  it('resamples the channels with Image Size as ImageMagick does (Lanczos, within half a level on average)', async () => {
    const original = extras(await psdChannels(fixture('cmyk-spot.psd')));
    const { s } = await opened('cmyk-spot.psd');
    await ok(s, 'resize_image', { width: 320, height: 319 });
    const resized = extras(await savedAs(s, 'half.psd'));
    for (const [name, plane] of original) {
      const ours = resized.get(name)!;
      expect(ours.length).toBe(320 * 319);
      const reference = await convertTo(
        [
          '-size',
          '640x637',
          '-depth',
          '8',
          `gray:${rawFile(plane, 'plate')}`,
          '-filter',
          'Lanczos',
          '-resize',
          '320x319!',
          'gray:OUT',
        ],
        'gray',
      );
      let sum = 0;
      let most = 0;
      for (let i = 0; i < ours.length; i++) {
        const d = Math.abs(ours[i]! - reference[i]!);
        sum += d;
        most = Math.max(most, d);
      }
      // Two Lanczos implementations (libvips, ImageMagick) round differently: measured 0.04–0.06 of a level on
      // average, 2 at most.
      expect(sum / ours.length, name).toBeLessThan(0.5);
      expect(most, name).toBeLessThanOrEqual(4);
    }
  });

  it('says an exported picture lacks them, and carries them through the session’s journal', async () => {
    const original = extras(await psdChannels(fixture('cmyk-spot.psd')));
    const { s } = await opened('cmyk-spot.psd');
    const png = await ok(s, 'export_image', { path: 'flat.png' });
    expect(warningsOf(png)).toContainEqual(
      expect.stringMatching(/不含专色或 Alpha 通道 “blue”、“fluorescent pink”、“yellow”/),
    );
    const encoded = encodeState(s.state, new BufferNames('t'));
    const files = new Map(encoded.fresh.map((f) => [f.name, Uint8Array.from(f.bytes)]));
    const restored = newSession(s.workspace.root);
    restored.restore(decodeState(encoded.json, (ref) => files.get(ref.name)!) as Session['state']);
    const again = extras(await savedAs(restored, 'again.psd'));
    for (const [name, plane] of original) expect(equalBytes(again.get(name)!, plane)).toBe(true);
  });
});

/** `data` (w × h pixels of `n` bytes) averaged over 2 × 2 blocks: ⌊w / 2⌋ × ⌊h / 2⌋ pixels. */
function halved(data: Uint8Array, w: number, h: number, n: number): Uint8Array {
  const hw = Math.floor(w / 2);
  const hh = Math.floor(h / 2);
  const out = new Uint8Array(hw * hh * n);
  for (let y = 0; y < hh; y++) {
    for (let x = 0; x < hw; x++) {
      for (let c = 0; c < n; c++) {
        const at = (yy: number, xx: number) => data[(yy * w + xx) * n + c]!;
        const sum = at(2 * y, 2 * x) + at(2 * y, 2 * x + 1) + at(2 * y + 1, 2 * x) + at(2 * y + 1, 2 * x + 1);
        out[(y * hw + x) * n + c] = Math.round(sum / 4);
      }
    }
  }
  return out;
}

/** The mean difference of the colour bytes (the first three of every `n`) of two pictures of the same size. */
function meanDifference(a: Uint8Array, b: Uint8Array, n: number): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += n) {
    for (let c = 0; c < 3; c++, count++) sum += Math.abs(a[i + c]! - b[i + c]!);
  }
  return sum / count;
}

/** `plane` as a file of grey bytes, for ImageMagick. */
function rawFile(plane: Uint8Array, name: string): string {
  const file = path.join(tempDir('channels-'), `${name}.gray`);
  writeFileSync(file, plane);
  return file;
}

/**
 * A flattened RGB file (no layer section) whose merged image holds R, G, B and one alpha channel "Mask A"
 * (identifier 7, shown red at 50 %), `depth` bits per channel, uncompressed: the shape Photoshop saves a
 * one-layer picture with a saved selection in when asked for maximum compatibility off.
 */
function flatRgbWithAlpha(w: number, h: number, depth: 8 | 16, mask: Uint8Array): Uint8Array {
  const bytes = depth / 8;
  const block = (id: number, data: Buffer) =>
    Buffer.concat([
      Buffer.from('8BIM'),
      Buffer.from([id >> 8, id & 255, 0, 0]),
      Buffer.from([
        data.length >> 24,
        (data.length >> 16) & 255,
        (data.length >> 8) & 255,
        data.length & 255,
      ]),
      data,
      Buffer.alloc(data.length & 1),
    ]);
  const name = 'Mask A';
  const unicode = Buffer.alloc(4 + (name.length + 1) * 2);
  unicode.writeUInt32BE(name.length + 1);
  for (let i = 0; i < name.length; i++) unicode.writeUInt16BE(name.charCodeAt(i), 4 + i * 2);
  const resources = Buffer.concat([
    block(1006, Buffer.concat([Buffer.from([name.length]), Buffer.from(name, 'latin1')])),
    block(1045, unicode),
    block(1053, Buffer.from([0, 0, 0, 7])),
    block(1077, Buffer.from([0, 0, 0, 1, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 50, 1])),
  ]);
  const header = Buffer.alloc(26);
  header.write('8BPS', 0, 'latin1');
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(4, 12);
  header.writeUInt32BE(h, 14);
  header.writeUInt32BE(w, 18);
  header.writeUInt16BE(depth, 22);
  header.writeUInt16BE(3, 24);
  const plane = (value: (i: number) => number) => {
    const out = Buffer.alloc(w * h * bytes);
    for (let i = 0; i < w * h; i++) {
      if (bytes === 1) out[i] = value(i);
      else out.writeUInt16BE(value(i) * 257, i * 2);
    }
    return out;
  };
  const sizeOf = (n: number) => Buffer.from([n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
  return Buffer.concat([
    header,
    sizeOf(0), // colour mode data
    sizeOf(resources.length),
    resources,
    sizeOf(0), // layer and mask information
    Buffer.from([0, 0]), // raw
    plane(() => 200),
    plane((i) => (i * 7) % 256),
    plane(() => 40),
    plane((i) => mask[i]!),
  ]);
}
