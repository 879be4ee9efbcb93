/**
 * Piece layers as designers' files have them. Layers that share a name (Photoshop allows it; CAD exports and
 * copied layers make it common): the garment tools tell them apart, so every piece can be confirmed and printed,
 * and a bare shared name is refused instead of landing on one of them. A layer mask shapes a piece: changing it
 * after identification makes the analysis stale, and a sleeve it cuts short is still one of a pair (both sleeves
 * so cut too); a group's mask shapes its pieces as their own does. A layer duplicated and not moved is the same
 * piece twice, not a second piece; one flipped where it was duplicated is the other sleeve, with a warning that
 * the layout looks unfinished. A layer at 0 % opacity, as a hidden one, is no piece.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { DocState, PixelLayer } from '../../src/engine/model.js';
import { topDown } from '../../src/engine/tree.js';
import { classifyPieces, collectPieces } from '../../src/garment/builtin/pieces.js';
import { garmentDocument, NAMES, PIECES, usePhoto } from '../support/garment-fixtures.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';

interface Reported {
  name: string;
  part: string;
  decided_by: string;
  reason: string;
  bounds: { x: number; y: number; width: number; height: number };
  copies: number;
  pair_with?: string;
  print_mirrored?: boolean;
  duplicate_of?: string;
  same_outline?: string[];
  alternative?: string;
  turn?: number;
}

const byName = (r: Record<string, unknown>) => new Map((r.pieces as Reported[]).map((p) => [p.name, p]));

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

describe('a piece inside a group with a mask', () => {
  it('is what the group mask shows, as with its own mask, and printed so; a changed group mask makes it stale', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    // The left sleeve in a group whose mask hides its lower half; the collar in one whose mask hides it all.
    await ok(session, 'group_layers', { layer_names: [NAMES.none.left], group_name: '袖组' });
    const L = PIECES.left;
    await ok(session, 'select_rect', {
      left: L.x - 5,
      top: L.y - 5,
      right: L.x + L.w + 5,
      bottom: L.y + Math.round(L.h * 0.5),
    });
    await ok(session, 'add_layer_mask', { name: '袖组' });
    await ok(session, 'group_layers', { layer_names: [NAMES.none.collar], group_name: '领组' });
    await ok(session, 'add_layer_mask', { name: '领组', hide_all: true });
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    expect([...pieces.keys()]).not.toContain(NAMES.none.collar);
    const cut = pieces.get(NAMES.none.left)!;
    expect(cut).toMatchObject({ part: 'left_sleeve', pair_with: NAMES.none.right });
    expect(cut.bounds.height).toBeLessThan(L.h * 0.6);
    expect(cut.reason).toContain('所在图层组的蒙版遮住了本片的');
    expect(cut.turn).toBeUndefined();
    expect(pieces.get(NAMES.none.right)).toMatchObject({ part: 'right_sleeve', print_mirrored: true });

    await ok(session, 'generate_garment_preview');
    const before = renderDocument(stateOf(session));
    await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const after = renderDocument(stateOf(session));
    const px = (r: typeof before, x: number, y: number) => [
      ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
    ];
    const x = L.x + Math.round(L.w / 2);
    expect(px(after, x, L.y + Math.round(L.h * 0.4))).not.toEqual(px(before, x, L.y + Math.round(L.h * 0.4)));
    expect(px(after, x, L.y + Math.round(L.h * 0.8))).toEqual(px(before, x, L.y + Math.round(L.h * 0.8)));

    // Showing the whole sleeve again changes its shape: the analysis no longer describes it.
    await ok(session, 'delete_layer_mask', { name: '袖组' });
    const stale = await call(session, 'verify_pattern_result');
    expect(stale.ok).toBe(false);
    if (stale.ok) return;
    expect(stale.error.code).toBe('invalid_state');
    expect(stale.error.message).toContain(NAMES.none.left);
  });
});

describe('a piece layer at 0 % opacity', () => {
  it('is no piece, as a hidden one is not, and a call naming it says why', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    // The collar's own opacity at 0; the back in a group at 0.
    await ok(session, 'set_layer_opacity', { name: NAMES.none.collar, opacity: 0 });
    await ok(session, 'group_layers', { layer_names: [NAMES.none.back], group_name: '身组' });
    await ok(session, 'set_layer_opacity', { name: '身组', opacity: 0 });
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const names = (found.pieces as Reported[]).map((p) => p.name);
    expect(names).not.toContain(NAMES.none.collar);
    expect(names).not.toContain(NAMES.none.back);
    await ok(session, 'generate_garment_preview');
    const before = hashEditor(session.editor.snapshot);
    for (const [name, says, hint] of [
      [NAMES.none.collar, `图层“${NAMES.none.collar}”的不透明度为 0%`, 'set_layer_opacity 调高它'],
      [NAMES.none.back, `图层“${NAMES.none.back}”所在的图层组“身组”的不透明度为 0%`, '图层组“身组”'],
    ] as const) {
      const r = await call(session, 'extract_and_apply_all_pieces', {
        pieces: [{ name, type: 'fill_pattern' }],
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe('not_found');
      expect(r.error.message).toContain(says);
      expect(r.error.hint).toContain(hint);
    }
    expect(hashEditor(session.editor.snapshot)).toBe(before);
    // Made visible again it is a piece the analysis has not seen.
    await ok(session, 'set_layer_opacity', { name: NAMES.none.collar, opacity: 100 });
    const stale = await call(session, 'generate_garment_preview');
    expect(stale.ok).toBe(false);
    const again = await ok(session, 'identify_pieces');
    expect((again.pieces as Reported[]).map((p) => p.name)).toContain(NAMES.none.collar);
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

describe('a layer duplicated in place', () => {
  it('is the same piece twice, flagged, never the mirror image of the layer it lies on', async () => {
    const plain = newSession();
    await garmentDocument(plain, 'none');
    const alone = byName(await ok(plain, 'identify_pieces'));

    const session = newSession();
    await garmentDocument(session, 'none');
    // Ctrl+J on the front and on the left sleeve: each copy lies exactly on its layer.
    for (const name of [NAMES.none.front, NAMES.none.left]) {
      await ok(session, 'select_layers', { names: [name] });
      await ok(session, 'duplicate_layer');
    }
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    const front = `${NAMES.none.front} 拷贝`;
    const sleeve = `${NAMES.none.left} 拷贝`;
    // The garment reads as it does without the copies: the sleeves are still two, not three (a pocket cut
    // three times), and every layer keeps its part.
    for (const [name, p] of alone) {
      expect(pieces.get(name), name).toMatchObject({ part: p.part, copies: p.copies });
      expect(pieces.get(name)!.pair_with, name).toBe(p.pair_with);
    }
    expect(pieces.get(front)).toMatchObject({ part: 'front', duplicate_of: NAMES.none.front, copies: 1 });
    expect(pieces.get(sleeve)).toMatchObject({
      part: pieces.get(NAMES.none.left)!.part,
      duplicate_of: NAMES.none.left,
    });
    // Not paired with the layer under it, nor printed as its mirror image: the only pair is the two sleeves.
    expect(pieces.get(front)!.pair_with).toBeUndefined();
    expect(pieces.get(sleeve)!.pair_with).toBeUndefined();
    expect(found.pairs).toEqual([[NAMES.none.left, NAMES.none.right]]);
    expect(pieces.get(front)!.reason).toContain(`与“${NAMES.none.front}”完全重叠`);
    expect(found.warnings as string[]).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`图层“${front}”与“${NAMES.none.front}”完全重叠`),
        expect.stringContaining(`图层“${sleeve}”与“${NAMES.none.left}”完全重叠`),
      ]),
    );
    // One answer decides the piece: its layer and the copy on it (asked once, with the other sleeve).
    expect(pieces.get(NAMES.none.front)!.same_outline).toEqual([front]);
    expect(pieces.get(NAMES.none.right)!.same_outline).toEqual([NAMES.none.left, sleeve]);
    const asked = (found.ask_order as string[] | undefined) ?? [];
    expect(
      asked.filter((n) => [NAMES.none.left, NAMES.none.right, sleeve].includes(n)).length,
    ).toBeLessThanOrEqual(1);
    // Printed as the layer it lies on, so what shows on top is that piece's print (a mirror image would not be).
    await usePhoto(session, 'fill');
    const again = await ok(session, 'identify_pieces');
    await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: again.proposed_pieces });
    const printOf = (piece: string) => {
      const layer = [...topDown(stateOf(session))].find((e) => e.layer.name === `${piece} 满印`)!.layer;
      if (layer.kind !== 'pixel') throw new Error(`${piece}: no print layer`);
      const { data, ...rect } = layer.raster;
      return { rect, hash: createHash('sha1').update(data).digest('hex') };
    };
    expect(printOf(front)).toEqual(printOf(NAMES.none.front));
    expect(printOf(sleeve)).toEqual(printOf(NAMES.none.left));
    const confirmed = byName(
      await ok(session, 'confirm_piece_parts', { pieces: [{ name: front, part: 'back' }] }),
    );
    expect(confirmed.get(NAMES.none.front)).toMatchObject({ part: 'back', decided_by: 'user' });
    expect(confirmed.get(front)).toMatchObject({ part: 'back', decided_by: 'user' });
  });
});

describe('a layer duplicated and flipped in place', () => {
  /** The document with one sleeve only: the right one deleted, the left duplicated and flipped (moved by `dx`). */
  async function flippedCopy(names: 'none' | 'zh', dx: number) {
    const session = newSession();
    await garmentDocument(session, names);
    await ok(session, 'select_layers', { names: [NAMES[names].right] });
    await ok(session, 'delete_layer');
    await ok(session, 'select_layers', { names: [NAMES[names].left] });
    await ok(session, 'duplicate_layer');
    const copy = `${NAMES[names].left} 拷贝`;
    await ok(session, 'flip_layer', { name: copy, direction: 'horizontal' });
    if (dx) await ok(session, 'move_layer', { name: copy, dx, dy: 0 });
    return { session, left: NAMES[names].left, copy };
  }

  it('is still the other sleeve of the pair, with a warning that the two lie on one another', async () => {
    const { session, left, copy } = await flippedCopy('none', 0);
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    expect(pieces.get(left)).toMatchObject({ part: 'left_sleeve', pair_with: copy, print_mirrored: false });
    expect(pieces.get(copy)).toMatchObject({ part: 'right_sleeve', pair_with: left, print_mirrored: true });
    expect(pieces.get(copy)!.duplicate_of).toBeUndefined();
    expect(found.pairs).toEqual([[left, copy]]);
    const warnings = found.warnings as string[];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`图层“${copy}”与“${left}”重叠`);
    expect(warnings[0]).toContain('排料');
  });

  it('laid beside its original is a pair with nothing to warn about', async () => {
    const { session, left, copy } = await flippedCopy('none', 240);
    const found = await ok(session, 'identify_pieces');
    expect(byName(found).get(copy)).toMatchObject({
      part: 'right_sleeve',
      pair_with: left,
      print_mirrored: true,
    });
    expect(found.warnings).toBeUndefined();
  });

  it('is the other side though Photoshop named the copy after the original (左袖 拷贝)', async () => {
    const { session, left, copy } = await flippedCopy('zh', 240);
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    expect(pieces.get(left)).toMatchObject({ part: 'left_sleeve', pair_with: copy, print_mirrored: false });
    expect(pieces.get(copy)).toMatchObject({ part: 'right_sleeve', pair_with: left, print_mirrored: true });
    expect(pieces.get(copy)!.reason).toContain(`“${left}”的镜像副本`);
    expect(found.pairs).toEqual([[left, copy]]);
  });
});

describe('a sleeve cut short by its layer mask', () => {
  /** The document with the left sleeve's layer mask hiding all of it below `keep` of its height. */
  async function cutSleeve(names: 'none' | 'zh', keep: number) {
    const session = newSession();
    await garmentDocument(session, names);
    const L = PIECES.left;
    await ok(session, 'select_rect', {
      left: L.x - 5,
      top: L.y - 5,
      right: L.x + L.w + 5,
      bottom: L.y + Math.round(L.h * keep),
    });
    await ok(session, 'add_layer_mask', { name: NAMES[names].left });
    return session;
  }

  it('re-pairs two sleeves both cut short, by as much or not, and prints each as its mask shows it', async () => {
    const plain = newSession();
    await garmentDocument(plain, 'none');
    const unmasked = byName(await ok(plain, 'identify_pieces'));
    for (const [keepLeft, keepRight] of [
      [0.5, 0.5],
      [0.5, 0.7],
    ] as const) {
      const session = await cutSleeves(keepLeft, keepRight);
      const found = await ok(session, 'identify_pieces');
      const pieces = byName(found);
      const left = pieces.get(NAMES.none.left)!;
      const right = pieces.get(NAMES.none.right)!;
      const at = `${keepLeft}/${keepRight}`;
      // As if unmasked: a left and a right sleeve, mirrored, upright, every other piece as it was.
      expect(left, at).toMatchObject({ part: 'left_sleeve', pair_with: NAMES.none.right, copies: 2 });
      expect(right, at).toMatchObject({
        part: 'right_sleeve',
        pair_with: NAMES.none.left,
        print_mirrored: true,
      });
      expect(found.pairs, at).toEqual([[NAMES.none.left, NAMES.none.right]]);
      expect(left.turn, at).toBeUndefined();
      expect(right.turn, at).toBeUndefined();
      for (const p of [left, right]) expect(p.reason, at).toContain('图层蒙版遮住了本片的');
      for (const key of ['front', 'back', 'collar'] as const)
        expect(pieces.get(NAMES.none[key])!.part, at).toBe(unmasked.get(NAMES.none[key])!.part);
      // Each one's geometry is what its own mask shows.
      expect(left.bounds.height, at).toBeLessThanOrEqual(Math.round(PIECES.left.h * keepLeft) + 5);
      expect(right.bounds.height, at).toBeLessThanOrEqual(Math.round(PIECES.right.h * keepRight) + 5);
      if (keepLeft === keepRight) continue;
      // Printed: inside what each mask shows the print lands, under the masked cuff the canvas is as before.
      await usePhoto(session, 'fill');
      const again = await ok(session, 'identify_pieces');
      await ok(session, 'generate_garment_preview');
      const before = renderDocument(stateOf(session));
      await ok(session, 'extract_and_apply_all_pieces', { pieces: again.proposed_pieces });
      const after = renderDocument(stateOf(session));
      const px = (r: typeof before, x: number, y: number) => [
        ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
      ];
      for (const [key, keep] of [
        ['left', keepLeft],
        ['right', keepRight],
      ] as const) {
        const P = PIECES[key];
        const x = P.x + Math.round(P.w / 2);
        const shown = P.y + Math.round(P.h * keep * 0.75);
        const hidden = P.y + Math.round(P.h * (keep + (1 - keep) / 2));
        expect(px(after, x, shown), `${key} shown`).not.toEqual(px(before, x, shown));
        expect(px(after, x, hidden), `${key} hidden`).toEqual(px(before, x, hidden));
      }
    }
  });

  it('leaves the other sleeve a sleeve, and reads the cut one as the mask shows it, asking', async () => {
    const session = await cutSleeve('none', 0.5);
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    const intact = pieces.get(NAMES.none.right)!;
    const cut = pieces.get(NAMES.none.left)!;
    // The intact sleeve keeps its part and its pair.
    expect(intact).toMatchObject({ part: 'right_sleeve', pair_with: NAMES.none.left, copies: 2 });
    // The cut one: a sleeve by the outline it was cut from, in doubt since what shows is no sleeve's shape; its
    // geometry is what the mask shows, and it lies upright as its pair does (a band across it is not turned).
    expect(cut).toMatchObject({ part: 'left_sleeve', pair_with: NAMES.none.right });
    expect(cut.alternative).toBeDefined();
    expect(cut.alternative).not.toMatch(/sleeve/);
    expect(cut.reason).toContain('图层蒙版遮住了本片的');
    expect(cut.bounds.height).toBeLessThan(PIECES.left.h * 0.6);
    expect(cut.turn).toBeUndefined();
    expect(found.needs_confirmation).toBe(true);
    expect(found.ask_order as string[]).toContain(NAMES.none.left);
    // The front, the back and the collar read as without the mask.
    expect(pieces.get(NAMES.none.front)!.part).toBe('front');
    expect(pieces.get(NAMES.none.back)!.part).toBe('back');
    expect(pieces.get(NAMES.none.collar)!.part).toBe('collar');
  });

  /** The document with each sleeve's layer mask hiding all of it below its share `keep` of its height. */
  async function cutSleeves(keepLeft: number, keepRight: number) {
    const session = newSession();
    await garmentDocument(session, 'none');
    for (const [key, keep] of [
      ['left', keepLeft],
      ['right', keepRight],
    ] as const) {
      const P = PIECES[key];
      await ok(session, 'select_rect', {
        left: P.x - 5,
        top: P.y - 5,
        right: P.x + P.w + 5,
        bottom: P.y + Math.round(P.h * keep),
      });
      await ok(session, 'add_layer_mask', { name: NAMES.none[key] });
    }
    return session;
  }

  it('does not take two print rectangles of one size, masked to the front and the back, for copies', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    // Each body panel as an opaque rectangle of the same size, shaped by a layer mask of its outline.
    const state = stateOf(session);
    const layers = new Map(state.layers);
    for (const key of ['front', 'back'] as const) {
      const entry = [...topDown(state)].find((e) => e.layer.name === NAMES.none[key])!;
      const layer = entry.layer as PixelLayer;
      const r = layer.raster;
      const mask = new Uint8Array(r.w * r.h);
      const rect = { ...r, data: new Uint8ClampedArray(r.data.length) };
      for (let i = 0; i < r.w * r.h; i++) {
        rect.data.set([200, 60, 60, 255], i * 4);
        mask[i] = r.data[i * 4 + 3]!;
      }
      const lm = { x: r.x, y: r.y, w: r.w, h: r.h, data: mask, outside: 0 as const, enabled: true };
      layers.set(layer.id, { ...layer, raster: rect, mask: lm });
    }
    const pieces = classifyPieces(collectPieces({ ...state, layers }));
    const of = (key: 'front' | 'back') => pieces.find((p) => p.name === NAMES.none[key])!;
    expect(of('front')).toMatchObject({ part: 'front', copies: 1, sameOutline: [], pairWith: null });
    expect(of('back')).toMatchObject({ part: 'back', copies: 1, sameOutline: [], pairWith: null });
    expect(of('front').cutFrom).toBeUndefined();
  });

  it('keeps a named pair mirrored, and prints every piece', async () => {
    const session = await cutSleeve('zh', 0.5);
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const pieces = byName(found);
    expect(pieces.get('右袖')).toMatchObject({
      part: 'right_sleeve',
      pair_with: '左袖',
      print_mirrored: true,
    });
    expect(pieces.get('左袖')).toMatchObject({ part: 'left_sleeve', pair_with: '右袖' });
    expect(pieces.get('左袖')!.turn).toBeUndefined();
    expect(found.pairs).toEqual([['左袖', '右袖']]);
    await ok(session, 'generate_garment_preview');
    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    expect((applied.applied as { piece: string }[]).map((a) => a.piece).sort()).toEqual(
      [...pieces.keys()].sort(),
    );
    const verified = await ok(session, 'verify_pattern_result');
    expect(verified.score as number).toBeGreaterThan(7);
  });
});
