/**
 * What a surface reads between calls (Session.inspectSettled): a call that only reads — identify_pieces waiting for
 * the photo's reading, verify_pattern_result measuring a production marker — no longer holds back the canvas's
 * picture or the document listing, which are made beside it; a call that changes what is read still comes first.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { garmentDocument, garmentPhoto } from '../support/garment-fixtures.js';
import { call, newSession, ok } from '../support/session.js';

/** Runs the reads in this order and gives the order in which they were answered. */
async function answeredOrder(reads: Record<string, () => Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(Object.entries(reads).map(([name, read]) => read().then(() => order.push(name))));
  return order;
}

describe('reads beside a running call', () => {
  it('renders and lists the documents beside a call that only reads; the snapshot waits for what it changes', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    const name = (await session.documents())[0]!.name;
    // A photo whose reading identify_pieces has to wait for: it is read on the photo thread meanwhile.
    await session.workspace.writeAtomic('photo.png', await garmentPhoto('fill', 2));
    await ok(session, 'set_garment_photo', { path: 'photo.png' });
    let identified: unknown[] | undefined;
    const order = await answeredOrder({
      identify: async () => {
        const r = await ok(session, 'identify_pieces');
        identified = r.proposed_pieces as unknown[];
      },
      render: () => session.render(name, 256),
      documents: () => session.documents(),
      layer: () => session.layerAt(name, 1, 1),
      // The snapshot shows the pieces' identification, which the call makes: it comes after it, with it.
      snapshot: async () => {
        const snap = await session.snapshot();
        expect(snap.garment.pieces.length).toBeGreaterThan(0);
      },
    });
    expect(order.slice(0, 3).sort()).toEqual(['documents', 'layer', 'render']);
    expect(order.slice(3)).toEqual(['identify', 'snapshot']);
    expect(identified!.length).toBeGreaterThan(0);
  });

  it('shows the print just applied beside verify_pattern_result, which measures it in turns', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    const name = (await session.documents())[0]!.name;
    await session.workspace.writeAtomic('photo.png', await garmentPhoto('fill'));
    await ok(session, 'set_garment_photo', { path: 'photo.png' });
    const found = await ok(session, 'identify_pieces');
    await ok(session, 'generate_garment_preview');
    // As a model's one answer with both calls: the canvas asks for its picture once the apply is done.
    const applied = ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const verified = ok(session, 'verify_pattern_result');
    await applied;
    const order = await answeredOrder({
      verify: () => verified,
      render: () => session.render(name, 1024),
    });
    expect(order).toEqual(['render', 'verify']);
    expect((await verified).score).toBeGreaterThan(8);
  });

  it('renders what a queued call changes, not what was there before it', async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 30, resolution: 72, name: 'card' });
    const pixel = async () => {
      const { png } = await session.render('card', 40);
      const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      return [...data.subarray(0, 3)];
    };
    expect(await pixel()).toEqual([255, 255, 255]);
    const inverted = call(session, 'invert_colors');
    // Asked for before the call has even started: it waits for the call, and shows the inverted canvas.
    expect(await pixel()).toEqual([0, 0, 0]);
    expect((await inverted).ok).toBe(true);
  });
});
