/**
 * A group clipped to a piece, above its print (Photoshop clips a group as it clips a layer; the engine draws a
 * clipped group as one layer, its composite blended in the group's mode). Its layers show only inside the piece,
 * so none of them is a piece. Opaque in normal or pass-through mode it hides the print as an opaque layer does,
 * and preview, apply and verify name it the same way; set to multiply as the warning says, the print shows,
 * shaded, and nothing is said of it.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { DocState, Raster } from '../../src/engine/model.js';
import { childrenOf, parentOf, topDown } from '../../src/engine/tree.js';
import { garmentDocument, PIECES, usePhoto } from '../support/garment-fixtures.js';
import { readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok } from '../support/session.js';

const stateOf = (session: Session): DocState => session.editor.begin().activeDocument().state;

const idOf = (state: DocState, name: string): number =>
  [...topDown(state)].find((e) => e.layer.name === name)!.layer.id;

const px = (r: Raster, x: number, y: number) => [
  ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
];

const FRONT_POINTS = Array.from({ length: 40 }, (_, i) => ({
  x: PIECES.front.x + 60 + ((i * 37) % 250),
  y: PIECES.front.y + 200 + ((i * 53) % 220),
}));

const warningsOf = (r: Record<string, unknown>) => (r.warnings as string[] | undefined) ?? [];

/** The zh pieces document with a group `明暗` holding a grey layer over the whole front, the group clipped to it. */
async function groupOverFront(): Promise<Session> {
  const session = newSession();
  await garmentDocument(session);
  await ok(session, 'select_layers', { names: ['前片'] });
  await ok(session, 'create_layer', { name: '阴影' });
  const F = PIECES.front;
  await ok(session, 'select_rect', { left: F.x, top: F.y, right: F.x + F.w, bottom: F.y + F.h });
  await ok(session, 'fill_selection', { color: '#808080' });
  await ok(session, 'deselect');
  await ok(session, 'group_layers', { layer_names: ['阴影'], group_name: '明暗' });
  await ok(session, 'create_clipping_mask', { name: '明暗' });
  const state = stateOf(session);
  const siblings = childrenOf(state, null);
  expect(siblings[siblings.indexOf(idOf(state, '前片')) + 1]).toBe(idOf(state, '明暗'));
  expect(state.layers.get(idOf(state, '明暗'))).toMatchObject({ kind: 'group', clipped: true });
  await usePhoto(session, 'fill');
  return session;
}

describe('a group clipped to a piece, above its print', () => {
  it('hiding it, is named by preview, apply and verify as an opaque clipped layer is', async () => {
    const session = await groupOverFront();
    const found = await ok(session, 'identify_pieces');
    // The layer in the clipped group shows only inside the front: it is the designer's shading, no piece.
    expect((found.pieces as { name: string }[]).map((p) => p.name)).not.toContain('阴影');
    const preview = await ok(session, 'generate_garment_preview');
    expect(warningsOf(preview).some((w) => w.includes('图层组“明暗”') && w.includes('裁片“前片”'))).toBe(
      true,
    );

    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const warned = warningsOf(applied).filter((w) => w.includes('剪贴在裁片'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('图层组“明暗”');
    expect(warned[0]).toContain('100%');
    expect(warned[0]).toContain('set_layer_blend_mode');

    // The group stays where it was, clipped, now to the piece's group; the canvas shows its grey, not the print.
    const state = stateOf(session);
    const printed = parentOf(state, idOf(state, '前片'))!;
    const siblings = childrenOf(state, null);
    expect(siblings[siblings.indexOf(printed) + 1]).toBe(idOf(state, '明暗'));
    const canvas = renderDocument(state);
    for (const p of FRONT_POINTS) expect(px(canvas, p.x, p.y)).toEqual([128, 128, 128, 255]);
    // psd-tools, an independent reader, composites the saved file the same way: the group hides the print.
    await ok(session, 'save_document_as', { path: 'grouped.psd' });
    const { dump, composite } = await readWithPsdTools(await session.workspace.read('grouped.psd'), {
      composite: true,
    });
    expect(dump.layers.find((l) => l.name === '明暗')).toMatchObject({ clipping: true });
    for (const p of FRONT_POINTS) {
      const o = (p.y * composite!.width + p.x) * 4;
      for (const c of composite!.data.subarray(o, o + 3)) expect(Math.abs(c - 128)).toBeLessThanOrEqual(2);
    }

    const verified = await ok(session, 'verify_pattern_result');
    const measures = verified.measures as { measure: string; score: number; per_piece?: object }[];
    expect(measures[0]).toMatchObject({ measure: 'hidden', score: 0 });
    expect(Object.keys(measures[0]!.per_piece!)).toEqual(['前片']);
    expect((verified.suggestions as string[])[0]).toContain('图层组“明暗”');

    // In multiply, as the warning says, the print shows through, shaded, and verify says nothing of the group.
    await ok(session, 'set_layer_blend_mode', { name: '明暗', mode: 'multiply' });
    const shaded = renderDocument(stateOf(session));
    expect(new Set(FRONT_POINTS.map((p) => px(shaded, p.x, p.y).join())).size).toBeGreaterThan(1);
    const again = await ok(session, 'verify_pattern_result');
    expect((again.measures as { measure: string }[]).map((m) => m.measure)).not.toContain('hidden');
    for (const s of again.suggestions as string[]) expect(s).not.toContain('“明暗”');
  });

  it('hidden or faded, is no warning', async () => {
    const session = await groupOverFront();
    await ok(session, 'set_layer_opacity', { name: '明暗', opacity: 40 });
    const found = await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    expect(warningsOf(preview).filter((w) => w.includes('剪贴在裁片'))).toEqual([]);
    await ok(session, 'set_layer_opacity', { name: '明暗', opacity: 100 });
    await ok(session, 'set_layer_visible', { name: '明暗', visible: false });
    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    expect(warningsOf(applied).filter((w) => w.includes('剪贴在裁片'))).toEqual([]);
  });
});
