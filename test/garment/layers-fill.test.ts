/**
 * Piece layers at a fill opacity (Photoshop's 填充不透明度) below 100 %, as a designer's PSD has them: the
 * layer's own pixels fade, its layer style (a stroke) does not. A piece at fill 0 with a stroke is an outline
 * drawing of the piece; its pixels still are its shape. Photoshop fades a clipping group with its base's fill
 * ("blend clipped layers as group", the default), so a print clipped to it would not show: apply sets the
 * piece's fill to 100 % (the print takes the place of its pixels, its stroke stays drawn above the print) and
 * says so, as identify and preview say beforehand; undo gives the fill back. A layer at fill 0 with no style
 * shows nothing at all, so it is no piece, as one at 0 % opacity is not.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { DocState, Raster } from '../../src/engine/model.js';
import { layerById, topDown } from '../../src/engine/tree.js';
import { garmentDocument, NAMES, PIECES, usePhoto } from '../support/garment-fixtures.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';

const stateOf = (session: Session): DocState => session.editor.begin().activeDocument().state;

const idOf = (state: DocState, name: string): number =>
  [...topDown(state)].find((e) => e.layer.name === name)!.layer.id;

const px = (r: Raster, x: number, y: number) => [
  ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
];

const warningsOf = (r: Record<string, unknown>) => (r.warnings as string[] | undefined) ?? [];

/** Saved as a PSD and opened again, so the fill is the one the PSD reader reads. */
async function throughPsd(session: Session): Promise<void> {
  await ok(session, 'save_document_as', { path: 'marker.psd' });
  await ok(session, 'close_document', {});
  await ok(session, 'open_document', { path: 'marker.psd' });
}

const FRONT_POINTS = Array.from({ length: 30 }, (_, i) => ({
  x: PIECES.front.x + 60 + ((i * 37) % 250),
  y: PIECES.front.y + 200 + ((i * 53) % 220),
}));

describe('a piece drawn as an outline (fill 0 %, a stroke)', () => {
  it('is a piece; apply sets its fill to 100 % so the print shows, keeps its stroke, and says so', async () => {
    const session = newSession();
    await garmentDocument(session);
    await ok(session, 'add_stroke', { name: '前片', size: 4, color: '#000000' });
    await ok(session, 'add_stroke', { name: '后片', size: 4, color: '#000000' });
    await ok(session, 'set_layer_fill_opacity', { name: '前片', fill_opacity: 0 });
    await ok(session, 'set_layer_fill_opacity', { name: '后片', fill_opacity: 50 });
    await throughPsd(session);
    expect(layerById(stateOf(session), idOf(stateOf(session), '前片')).fillOpacity).toBe(0);
    await usePhoto(session, 'fill');
    // Below the front's hem: its stroke, outside the piece.
    const F = PIECES.front;
    const stroke = { x: F.x + Math.round(F.w / 2), y: F.y + F.h + 2 };
    const outline = renderDocument(stateOf(session));
    expect(px(outline, stroke.x, stroke.y)).toEqual([0, 0, 0, 255]);
    // Inside it nothing of the piece shows, only the white background.
    for (const p of FRONT_POINTS) expect(px(outline, p.x, p.y)).toEqual([255, 255, 255, 255]);

    const found = await ok(session, 'identify_pieces');
    expect((found.pieces as { name: string }[]).map((p) => p.name)).toContain('前片');
    const said = (r: Record<string, unknown>, piece: string, fill: string) =>
      warningsOf(r).filter((w) => w.includes(`裁片“${piece}”的填充不透明度为 ${fill}`));
    expect(said(found, '前片', '0%')).toHaveLength(1);
    expect(said(found, '后片', '50%')).toHaveLength(1);
    const preview = await ok(session, 'generate_garment_preview');
    expect(said(preview, '前片', '0%')).toHaveLength(1);

    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const warned = said(applied, '前片', '0%');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('已把它的填充不透明度改为 100%');
    expect(warned[0]).toContain('undo');
    expect(said(applied, '后片', '50%')).toHaveLength(1);
    expect(warningsOf(applied).filter((w) => w.includes('填充不透明度'))).toHaveLength(2);

    const state = stateOf(session);
    expect(layerById(state, idOf(state, '前片')).fillOpacity ?? 1).toBe(1);
    expect(layerById(state, idOf(state, '后片')).fillOpacity ?? 1).toBe(1);
    expect(layerById(state, idOf(state, '前片')).effects?.stroke).toBeDefined();
    const canvas = renderDocument(state);
    // The print fills the outline (its navy discs and cream ground), and the stroke is still drawn.
    const colours = new Set(FRONT_POINTS.map((p) => px(canvas, p.x, p.y).join()));
    expect(colours.has('255,255,255,255')).toBe(false);
    expect(colours.size).toBeGreaterThan(1);
    expect(px(canvas, stroke.x, stroke.y)).toEqual([0, 0, 0, 255]);

    const verified = await ok(session, 'verify_pattern_result');
    expect((verified.measures as { measure: string }[]).map((m) => m.measure)).not.toContain('hidden');
    expect(verified.score as number).toBeGreaterThan(5);

    // One step: undo gives the outline back, fill and all.
    await ok(session, 'undo');
    const undone = stateOf(session);
    expect(layerById(undone, idOf(undone, '前片')).fillOpacity).toBe(0);
  });
});

describe('a layer at fill 0 % with no layer style', () => {
  it('shows nothing, so is no piece; a call naming it says why, and at fill 100 % again it is one', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    await ok(session, 'set_layer_fill_opacity', { name: NAMES.none.collar, fill_opacity: 0 });
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const names = (found.pieces as { name: string }[]).map((p) => p.name);
    expect(names).not.toContain(NAMES.none.collar);
    expect(names).toHaveLength(4);
    await ok(session, 'generate_garment_preview');
    const before = hashEditor(session.editor.snapshot);
    const r = await call(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: NAMES.none.collar, type: 'fill_pattern' }],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('not_found');
    expect(r.error.message).toContain(`图层“${NAMES.none.collar}”的填充不透明度为 0%`);
    expect(r.error.hint).toContain('set_layer_fill_opacity');
    expect(hashEditor(session.editor.snapshot)).toBe(before);
    await ok(session, 'set_layer_fill_opacity', { name: NAMES.none.collar, fill_opacity: 100 });
    const again = await ok(session, 'identify_pieces');
    expect((again.pieces as { name: string }[]).map((p) => p.name)).toContain(NAMES.none.collar);
  });
});
