/**
 * A piece's own blend mode and opacity, and those of a group holding it: the print, clipped to the piece, takes
 * them on (Photoshop: the clipped layers assume the opacity and mode of the base), so a piece in screen mode shows
 * no print on white and one at 40 % shows it faded. Preview and apply say so, naming the layer and the call that
 * prints it true, and verify leads with it instead of blaming the print; multiply, which leaves a print on white
 * as it is (designers set pieces to it to see a grid through), is no warning.
 */
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { Raster } from '../../src/engine/model.js';
import { garmentDocument, PIECES, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';

const warningsOf = (r: Record<string, unknown>) => (r.warnings as string[] | undefined) ?? [];

const px = (r: Raster, x: number, y: number) => [
  ...r.data.subarray((y * r.w + x) * 4, (y * r.w + x) * 4 + 4),
];

describe("a piece's mode and opacity", () => {
  it('carried over to its print are named by preview, apply and verify, with the calls that print it true', async () => {
    const session = newSession();
    await garmentDocument(session);
    await ok(session, 'set_layer_blend_mode', { name: '前片', mode: 'screen' });
    await ok(session, 'set_layer_opacity', { name: '后片', opacity: 40 });
    await ok(session, 'set_layer_blend_mode', { name: '左袖', mode: 'multiply' });
    await ok(session, 'group_layers', { layer_names: ['领'], group_name: '领组' });
    await ok(session, 'set_layer_blend_mode', { name: '领组', mode: 'difference' });
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const about = (r: Record<string, unknown>) =>
      warningsOf(r).filter((w) => w.includes('套在裁片上的花样随它'));
    const preview = await ok(session, 'generate_garment_preview');
    expect(about(preview)).toHaveLength(3);

    const applied = await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const warned = about(applied);
    expect(warned).toHaveLength(3);
    const front = warned.find((w) => w.startsWith('裁片“前片”'))!;
    expect(front).toContain('screen');
    expect(front).toContain('set_layer_blend_mode 把“前片”改为 normal');
    const back = warned.find((w) => w.startsWith('裁片“后片”'))!;
    expect(back).toContain('不透明度为 40%');
    expect(back).toContain('set_layer_opacity 把“后片”调回 100');
    expect(warned.find((w) => w.startsWith('裁片“领”所在的图层组“领组”'))).toContain('difference');
    expect(warned.some((w) => w.includes('左袖'))).toBe(false);
    // As the warning says: on the white background the front in screen mode shows no print at all.
    const F = PIECES.front;
    const canvas = renderDocument(session.editor.begin().activeDocument().state);
    expect(px(canvas, F.x + 150, F.y + 250)).toEqual([255, 255, 255, 255]);

    const verified = await ok(session, 'verify_pattern_result');
    expect((verified.measures as { measure: string }[])[0]!.measure).toBe('looks');
    const first = (verified.suggestions as string[])[0]!;
    expect(first).toContain('花样与下方混合');
    for (const name of ['“前片”', '“后片”', '“领组”']) expect(first).toContain(name);
    expect(verified.next as string).not.toContain('extract_and_apply_all_pieces');

    await ok(session, 'set_layer_blend_mode', { name: '前片', mode: 'normal' });
    await ok(session, 'set_layer_opacity', { name: '后片', opacity: 100 });
    await ok(session, 'set_layer_blend_mode', { name: '领组', mode: 'normal' });
    const again = await ok(session, 'verify_pattern_result');
    for (const s of again.suggestions as string[]) expect(s).not.toContain('花样与下方混合');
    expect(again.score as number).toBeGreaterThan(verified.score as number);
  });
});
