/**
 * A layer that was no piece when identify_pieces ran because nothing of it showed (a hide-all layer mask, its
 * group's) and shows later (the mask deleted, or painted white) makes the next garment call refuse and ask for
 * identify_pieces again, naming the layer, as a layer added or shown since does. A layer that was and still is
 * invisible (hidden, at 0 % opacity, or masked whole, even by another mask) does not.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, LayerMask } from '../../src/engine/model.js';
import { topDown } from '../../src/engine/tree.js';
import { garmentDocument, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok, refused } from '../support/session.js';

const piecesOf = (r: Record<string, unknown>) => (r.pieces as { name: string }[]).map((p) => p.name);

/** Replaces the layer mask of layer `name` (a layer or a group) with one of `value` everywhere over it. */
function paintMask(session: Session, name: string, value: 0 | 255): void {
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  const state: DocState = doc.state;
  const layer = [...topDown(state)].find((e) => e.layer.name === name)!.layer;
  const old = layer.mask!;
  const mask: LayerMask = { ...old, data: new Uint8Array(old.w * old.h).fill(value), outside: value };
  const layers = new Map(state.layers);
  layers.set(layer.id, { ...layer, mask });
  tx.update(doc.id, { ...state, layers });
  session.editor.commit(tx, 'paint mask', true);
}

/**
 * The zh pieces with the collar masked whole (its own mask, or its group's), the right sleeve hidden and the back
 * at 0 % opacity, identified: the front and the left sleeve are the pieces.
 */
async function identifiedWithoutCollar(by: 'layer' | 'group'): Promise<Session> {
  const session = newSession();
  await garmentDocument(session);
  if (by === 'layer') {
    await ok(session, 'add_layer_mask', { name: '领', hide_all: true });
  } else {
    await ok(session, 'group_layers', { layer_names: ['领'], group_name: '领组' });
    await ok(session, 'add_layer_mask', { name: '领组', hide_all: true });
  }
  await ok(session, 'set_layer_visible', { name: '右袖', visible: false });
  await ok(session, 'set_layer_opacity', { name: '后片', opacity: 0 });
  await usePhoto(session, 'fill');
  const found = await ok(session, 'identify_pieces');
  expect(piecesOf(found).sort()).toEqual(['前片', '左袖'].sort());
  return session;
}

describe('a layer masked whole at identification', () => {
  for (const [by, reveal] of [
    ['layer', 'deleted'],
    ['layer', 'painted white'],
    ['group', 'deleted'],
  ] as const) {
    it(`revealed later (its ${by === 'layer' ? 'own' : "group's"} mask ${reveal}) makes the next garment call refuse, naming it`, async () => {
      const session = await identifiedWithoutCollar(by);
      // Still invisible, all of them: the calls go ahead.
      await ok(session, 'generate_garment_preview');
      const holder = by === 'layer' ? '领' : '领组';
      if (reveal === 'deleted') await ok(session, 'delete_layer_mask', { name: holder });
      else paintMask(session, holder, 255);
      for (const name of ['generate_garment_preview', 'extract_and_apply_all_pieces'] as const) {
        const error = await refused(
          session,
          name,
          name === 'generate_garment_preview' ? {} : { pieces: [{ name: '前片', type: 'fill_pattern' }] },
          'invalid_state',
        );
        expect(error.message).toContain('“领”');
        expect(error.message).toContain('可能是裁片');
        expect(String(error.hint)).toContain('identify_pieces');
      }
      // Identified again, the collar is a piece and the flow goes on.
      const again = await ok(session, 'identify_pieces');
      expect(piecesOf(again)).toContain('领');
      await ok(session, 'generate_garment_preview');
    });
  }

  it('does not make the calls refuse while it, the hidden layer and the one at 0 % stay invisible', async () => {
    const session = await identifiedWithoutCollar('layer');
    await ok(session, 'generate_garment_preview');
    // The collar's mask replaced by another that hides it all; the hidden sleeve painted on; the back stays at 0 %.
    paintMask(session, '领', 0);
    await ok(session, 'select_layers', { names: ['右袖'] });
    await ok(session, 'select_rect', { left: 1100, top: 60, right: 1200, bottom: 150 });
    await ok(session, 'fill_selection', { color: '#336699' });
    await ok(session, 'deselect');
    await ok(session, 'generate_garment_preview');
    const applied = await ok(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: '前片', type: 'fill_pattern' }],
    });
    expect(applied.applied).toHaveLength(1);
    await ok(session, 'verify_pattern_result');
    // Shown again, the sleeve is a piece the analysis has not seen: as before, the calls refuse.
    await ok(session, 'set_layer_visible', { name: '右袖', visible: true });
    const error = await refused(session, 'verify_pattern_result', {}, 'invalid_state');
    expect(error.message).toContain('“右袖”');
  });
});
