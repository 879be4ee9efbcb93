/**
 * A designer's own layer clipped to a piece (shading, a highlight, a logo) stays where it was, above the print,
 * as Photoshop keeps a clipping group's layers above a fill added to its base: after extract_and_apply_all_pieces
 * it clips to the piece's group `<piece> 花样`. A shading layer in multiply then shades the print; an opaque one in
 * normal mode hides it, in Photoshop as here, and preview, apply and verify say so, naming the layer, the piece
 * and the calls that let the print show. A clipped layer that leaves most of the print visible is not mentioned.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { DocState, Raster } from '../../src/engine/model.js';
import { childrenOf, parentOf, topDown } from '../../src/engine/tree.js';
import { printCovers } from '../../src/garment/apply.js';
import { collectPieces } from '../../src/garment/builtin/pieces.js';
import { allTools } from '../../src/registry/index.js';
import { garmentDocument, PIECES, usePhoto } from '../support/garment-fixtures.js';
import { readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok } from '../support/session.js';

const stateOf = (session: Session): DocState => session.editor.begin().activeDocument().state;

const idOf = (state: DocState, name: string): number =>
  [...topDown(state)].find((e) => e.layer.name === name)!.layer.id;

const px = (r: Raster, x: number, y: number) => [
  ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
];

/** The zh pieces document with a grey layer `阴影` over the whole front, clipped to it, in `blend` mode. */
async function shadedFront(blend: 'normal' | 'multiply'): Promise<Session> {
  const session = newSession();
  await garmentDocument(session);
  await ok(session, 'select_layers', { names: ['前片'] });
  await ok(session, 'create_layer', { name: '阴影' });
  const F = PIECES.front;
  await ok(session, 'select_rect', { left: F.x, top: F.y, right: F.x + F.w, bottom: F.y + F.h });
  await ok(session, 'fill_selection', { color: '#808080' });
  await ok(session, 'deselect');
  await ok(session, 'create_clipping_mask', { name: '阴影' });
  if (blend !== 'normal') await ok(session, 'set_layer_blend_mode', { name: '阴影', mode: blend });
  await usePhoto(session, 'fill');
  return session;
}

/** Points well inside the front (its lower body, clear of the neckline and armholes). */
const FRONT_POINTS = Array.from({ length: 40 }, (_, i) => ({
  x: PIECES.front.x + 60 + ((i * 37) % 250),
  y: PIECES.front.y + 200 + ((i * 53) % 220),
}));

const warningsOf = (r: Record<string, unknown>) => (r.warnings as string[] | undefined) ?? [];

describe('a layer clipped to a piece, above its print', () => {
  it('opaque in normal mode: kept above the print, and preview, apply and verify name it as what hides the print', async () => {
    const session = await shadedFront('normal');
    const shading = idOf(stateOf(session), '阴影');
    const raster = (stateOf(session).layers.get(shading) as { raster: Raster }).raster;
    const found = await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    expect(warningsOf(preview).some((w) => w.includes('“阴影”') && w.includes('“前片”'))).toBe(true);

    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const warned = warningsOf(applied).filter((w) => w.includes('“阴影”'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('裁片“前片”');
    expect(warned[0]).toContain('100%');
    // The calls it names are the registry's.
    const tools = new Set<string>(allTools.map((t) => t.name));
    for (const call of ['set_layer_blend_mode', 'set_layer_visible', 'set_layer_opacity']) {
      expect(warned[0]).toContain(call);
      expect(tools.has(call)).toBe(true);
    }
    // Nothing else is warned about: the other pieces have no layer over their print.
    expect(warningsOf(applied).filter((w) => w.includes('剪贴在裁片'))).toHaveLength(1);

    // The designer's layer is where it was: still clipped, directly above the piece's group, its pixels as drawn.
    const state = stateOf(session);
    const group = parentOf(state, idOf(state, '前片'))!;
    expect(state.layers.get(group)!.name).toBe('前片 花样');
    const siblings = childrenOf(state, parentOf(state, group));
    expect(siblings[siblings.indexOf(group) + 1]).toBe(shading);
    const layer = state.layers.get(shading)!;
    expect(layer).toMatchObject({ clipped: true, visible: true, blend: 'normal', opacity: 1 });
    expect((layer as { raster: Raster }).raster).toBe(raster);
    // And it hides the print, as in Photoshop: the front is its grey.
    const canvas = renderDocument(state);
    for (const p of FRONT_POINTS) expect(px(canvas, p.x, p.y)).toEqual([128, 128, 128, 255]);

    // verify names the layer as the reason first, and says nothing about the front's print itself.
    const verified = await ok(session, 'verify_pattern_result');
    const suggestions = verified.suggestions as string[];
    expect(suggestions[0]).toContain('花样被遮挡');
    expect(suggestions[0]).toContain('“阴影”');
    expect(suggestions[0]).toContain('“前片”');
    expect(suggestions[0]).toContain('set_layer_blend_mode');
    for (const s of suggestions.slice(1)) expect(s).not.toContain('“前片”');
    const measures = verified.measures as { measure: string; score: number; per_piece?: unknown }[];
    expect(measures[0]).toMatchObject({ measure: 'hidden', score: 0 });
    expect(measures.map((m) => m.measure)).not.toContain('photo');
    expect(Object.keys(measures[0]!.per_piece as object)).toEqual(['前片']);
    expect(verified.score as number).toBeLessThan(5);
    expect(verified.next as string).not.toContain('extract_and_apply_all_pieces');

    // Set to multiply as the suggestion says, the print shows, shaded, and verify has nothing to say of the layer.
    await ok(session, 'set_layer_blend_mode', { name: '阴影', mode: 'multiply' });
    const again = await ok(session, 'verify_pattern_result');
    expect((again.measures as { measure: string }[]).map((m) => m.measure)).not.toContain('hidden');
    for (const s of again.suggestions as string[]) expect(s).not.toContain('“阴影”');
    // The front is the anchor: compared with the photo again now that its print shows (the photo measure was
    // left out while the grey hid it, rather than blaming the print).
    expect((again.measures as { measure: string }[]).map((m) => m.measure)).toContain('photo');
  });

  it('in multiply: the print shows, shaded, with nothing to warn about; a small opaque logo is no warning either', async () => {
    const session = await shadedFront('multiply');
    // A logo on the back, opaque, normal mode, clipped to it: a designer's detail over a small part of the print.
    await ok(session, 'select_layers', { names: ['后片'] });
    await ok(session, 'create_layer', { name: '标志' });
    const B = PIECES.back;
    await ok(session, 'select_rect', {
      left: B.x + 150,
      top: B.y + 200,
      right: B.x + 230,
      bottom: B.y + 260,
    });
    await ok(session, 'fill_selection', { color: '#ffffff' });
    await ok(session, 'deselect');
    await ok(session, 'create_clipping_mask', { name: '标志' });

    const found = await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    expect(warningsOf(preview).filter((w) => w.includes('剪贴在裁片'))).toEqual([]);
    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    expect(warningsOf(applied).filter((w) => w.includes('剪贴在裁片'))).toEqual([]);

    // On the canvas: the print under the shading, every channel multiplied by its grey (128/255).
    const state = stateOf(session);
    const shading = idOf(state, '阴影');
    expect(state.layers.get(shading)).toMatchObject({ clipped: true, blend: 'multiply' });
    const layers = new Map(state.layers);
    layers.set(shading, { ...state.layers.get(shading)!, visible: false });
    const shaded = renderDocument(state);
    const bare = renderDocument({ ...state, layers });
    const colours = new Set<string>();
    for (const p of FRONT_POINTS) {
      const [r, g, b, a] = px(bare, p.x, p.y);
      const want = [r!, g!, b!].map((c) => Math.round((c * 128) / 255));
      const got = px(shaded, p.x, p.y);
      expect(got[3]).toBe(a);
      for (let k = 0; k < 3; k++) expect(Math.abs(got[k]! - want[k]!)).toBeLessThanOrEqual(1);
      colours.add(`${r},${g},${b}`);
    }
    // The print itself is there under the shading (not a flat colour): its navy discs and cream ground.
    expect(colours.size).toBeGreaterThan(1);
    // Saved, psd-tools (an independent reader) reads the same stack: the shading clipped to the front's group,
    // directly above it, and composites the front shaded as we do.
    await ok(session, 'save_document_as', { path: 'shaded.psd' });
    const { dump, composite } = await readWithPsdTools(await session.workspace.read('shaded.psd'), {
      composite: true,
    });
    const names = dump.layers.map((l) => l.name);
    const at = names.indexOf('前片 花样');
    expect(dump.layers[at + 1]).toMatchObject({ name: '阴影', clipping: true, blend: 'multiply' });
    expect(dump.layers[at]!.children!.map((l) => l.name)).toEqual(['前片', '前片 满印']);
    for (const p of FRONT_POINTS) {
      const o = (p.y * composite!.width + p.x) * 4;
      const theirs = [...composite!.data.subarray(o, o + 3)];
      const ours = px(shaded, p.x, p.y).slice(0, 3);
      for (let k = 0; k < 3; k++) expect(Math.abs(theirs[k]! - ours[k]!)).toBeLessThanOrEqual(2);
    }

    const verified = await ok(session, 'verify_pattern_result');
    expect((verified.measures as { measure: string }[]).map((m) => m.measure)).not.toContain('hidden');
    for (const s of verified.suggestions as string[]) {
      expect(s).not.toContain('“阴影”');
      expect(s).not.toContain('“标志”');
    }
  });

  it('at fill 0 % (only its effects show, as Photoshop draws it) hides nothing', async () => {
    const session = await shadedFront('normal');
    const state = stateOf(session);
    const piece = collectPieces(state).find((p) => p.name === '前片')!;
    expect(printCovers(state, piece).map((c) => c.name)).toEqual(['阴影']);
    const id = idOf(state, '阴影');
    const layers = new Map(state.layers);
    layers.set(id, { ...layers.get(id)!, fillOpacity: 0 });
    expect(printCovers({ ...state, layers }, piece)).toEqual([]);
  });
});
