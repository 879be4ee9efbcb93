/**
 * Piece layers as designers' files have them. Layers that share a name (Photoshop allows it; CAD exports and
 * copied layers make it common): the garment tools tell them apart, so every piece can be confirmed and printed,
 * and a bare shared name is refused instead of landing on one of them. A layer mask shapes a piece: changing it
 * after identification makes the analysis stale.
 */
import { describe, expect, it } from 'vitest';
import type { DocState } from '../../src/engine/model.js';
import { topDown } from '../../src/engine/tree.js';
import { garmentDocument, NAMES, usePhoto } from '../support/garment-fixtures.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';

interface Reported {
  name: string;
  part: string;
  decided_by: string;
}

const stateOf = (session: ReturnType<typeof newSession>): DocState =>
  session.editor.begin().activeDocument().state;

describe('piece layers with the same name', () => {
  it('are named #1, #2… from the top, confirmed one by one, and every one is printed', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    // The right sleeve's layer takes the back's name: two layers called "图层 1".
    const shared = NAMES.none.back;
    await ok(session, 'select_layers', { names: [NAMES.none.right] });
    await ok(session, 'rename_layer', { new_name: shared });
    const ids = [...topDown(stateOf(session))].filter((e) => e.layer.name === shared).map((e) => e.layer.id);
    expect(ids).toHaveLength(2);

    const found = await ok(session, 'identify_pieces');
    const pieces = found.pieces as Reported[];
    expect(pieces.map((p) => p.name).sort()).toEqual(
      [`${shared}#1`, `${shared}#2`, NAMES.none.front, NAMES.none.collar, NAMES.none.left].sort(),
    );
    expect(found.shared_layer_names).toContain(`2 个裁片图层都叫“${shared}”`);
    expect(found.shared_layer_names).toContain(`“${shared}#1”、“${shared}#2”`);
    // #1 is the upper layer: the sleeve (inserted after the back in the fixture).
    const upper = pieces.find((p) => p.name === `${shared}#1`)!;
    const lower = pieces.find((p) => p.name === `${shared}#2`)!;
    expect(upper.part).toBe('right_sleeve');
    expect(lower.part).toBe('back');

    // The bare name is ambiguous: refused, naming both, and nothing changes.
    const before = hashEditor(session.editor.snapshot);
    const memory = session.garment;
    const refused = await call(session, 'confirm_piece_parts', { pieces: [{ name: shared, part: 'back' }] });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe('not_found');
    expect(refused.error.hint).toContain(`“${shared}#1”、“${shared}#2”`);
    expect(hashEditor(session.editor.snapshot)).toBe(before);
    expect(session.garment).toBe(memory);

    // Each is its own piece: confirming the lower one touches only it.
    const confirmed = await ok(session, 'confirm_piece_parts', {
      pieces: [{ name: `${shared}#2`, part: 'back' }],
    });
    const after = new Map((confirmed.pieces as Reported[]).map((p) => [p.name, p]));
    expect(after.get(`${shared}#2`)).toMatchObject({ part: 'back', decided_by: 'user' });
    expect(after.get(`${shared}#1`)).toMatchObject({ part: 'right_sleeve' });
    expect(after.get(`${shared}#1`)!.decided_by).not.toBe('user');

    // The whole flow: every piece layer gets its print, both of the shared name included.
    await usePhoto(session, 'fill');
    const identified = await ok(session, 'identify_pieces');
    await ok(session, 'generate_garment_preview');
    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: identified.proposed_pieces });
    expect(applied.pieces_without_pattern).toBeUndefined();
    expect((applied.applied as { piece: string }[]).map((a) => a.piece).sort()).toEqual(
      pieces.map((p) => p.name).sort(),
    );
    const state = stateOf(session);
    for (const id of ids) {
      const parent = [...topDown(state)].find((e) => e.layer.id === id)!.parent;
      expect(parent, `layer ${id} is grouped with its print`).not.toBeNull();
      const group = state.layers.get(parent!)!;
      expect(group.name).toMatch(new RegExp(`^${shared}#[12] 花样$`));
      // The layers keep their own name; only the tools tell them apart.
      expect(state.layers.get(id)!.name).toBe(shared);
    }
    const verified = await ok(session, 'verify_pattern_result');
    expect(verified.score as number).toBeGreaterThan(7);
  });

  it('sees a layer mask added after identify_pieces as a changed piece', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    await usePhoto(session, 'fill');
    await ok(session, 'identify_pieces');
    // Hiding the whole back changes its shape: the analysis no longer describes it.
    await ok(session, 'add_layer_mask', { name: NAMES.none.back, hide_all: true });
    const stale = await call(session, 'generate_garment_preview');
    expect(stale.ok).toBe(false);
    if (stale.ok) return;
    expect(stale.error.code).toBe('invalid_state');
    expect(stale.error.message).toContain(NAMES.none.back);
    // Identified again, the hidden back is no piece at all.
    const again = await ok(session, 'identify_pieces');
    expect((again.pieces as Reported[]).map((p) => p.name)).not.toContain(NAMES.none.back);
  });
});

describe('piece layers a marker may hold', () => {
  it('leaves out a piece lying wholly off the canvas, saying so, and verifies the rest', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    await ok(session, 'move_layer', { name: NAMES.none.back, dx: 0, dy: 2000 });
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    expect((found.pieces as Reported[]).map((p) => p.name)).not.toContain(NAMES.none.back);
    expect(found.warnings as string[]).toEqual(
      expect.arrayContaining([expect.stringContaining(`“${NAMES.none.back}”完全在画布之外`)]),
    );
    await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    // Verify used to fail with an internal error on the piece's empty share of the canvas.
    const verified = await ok(session, 'verify_pattern_result');
    expect(verified.score as number).toBeGreaterThan(5);
  });

  it('refuses to print pieces inside a locked group, and says why a hidden piece is not one', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    await ok(session, 'group_layers', {
      layer_names: [NAMES.none.front, NAMES.none.back],
      group_name: '身组',
    });
    await ok(session, 'lock_layer', { name: '身组', locked: true });
    await ok(session, 'set_layer_visible', { name: NAMES.none.collar, visible: false });
    await usePhoto(session, 'fill');
    await ok(session, 'identify_pieces');
    await ok(session, 'generate_garment_preview');
    const before = hashEditor(session.editor.snapshot);
    const locked = await call(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: NAMES.none.front, type: 'fill_pattern' }],
    });
    expect(locked.ok).toBe(false);
    if (locked.ok) return;
    expect(locked.error.code).toBe('locked');
    expect(locked.error.message).toContain('身组');
    expect(hashEditor(session.editor.snapshot)).toBe(before);
    const hidden = await call(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: NAMES.none.collar, type: 'fill_pattern' }],
    });
    expect(hidden.ok).toBe(false);
    if (hidden.ok) return;
    expect(hidden.error.message).toContain('隐藏');
    expect(hidden.error.hint).toContain('set_layer_visible');
  });
});

describe('a piece added after identification', () => {
  it('makes the identification stale, as a changed piece does', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    await usePhoto(session, 'fill');
    await ok(session, 'identify_pieces');
    // An empty layer is nothing yet; once something is painted on it, it may be a piece.
    await ok(session, 'create_layer', { name: '口袋' });
    await ok(session, 'generate_garment_preview');
    await ok(session, 'select_rect', { left: 1100, top: 300, right: 1200, bottom: 400 });
    await ok(session, 'fill_selection', { color: '#888888' });
    await ok(session, 'deselect');
    const stale = await call(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: NAMES.none.front, type: 'fill_pattern' }],
    });
    expect(stale.ok).toBe(false);
    if (stale.ok) return;
    expect(stale.error.code).toBe('invalid_state');
    expect(stale.error.message).toContain('“口袋”');
    expect(stale.error.hint).toContain('identify_pieces');
    // Identified again, the new piece is one of them.
    const again = await ok(session, 'identify_pieces');
    expect((again.pieces as Reported[]).map((p) => p.name)).toContain('口袋');
  });
});
