/** The garment workflow through Session.call, on synthetic known-answer pieces and photos. */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, GroupLayer, Layer, PixelLayer } from '../../src/engine/model.js';
import { childrenOf, layersNamed, parentOf } from '../../src/engine/tree.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import { fillRaster } from '../../src/garment/render.js';
import { SIDE_SEAM_ALLOWANCE_MM } from '../../src/garment/seams.js';
import { runCli } from '../support/cli.js';
import {
  DOC,
  EXPECTED_SCALE,
  GROUND,
  garmentDocument,
  LIGHT_PERIOD,
  lightGroundPhoto,
  NAMES,
  NAVY,
  PALE_STAR,
  PIECES,
  PLAID_TILE,
  placedGarmentDocument,
  plainGarmentPhoto,
  RED,
  STAR,
  STRIPE,
  THEME_GROUND,
  TILE,
  usePhoto,
} from '../support/garment-fixtures.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, hashEditor, newSession, ok, tempDir } from '../support/session.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function state(session: Session): DocState {
  return session.editor.begin().activeDocument().state;
}

function named(s: DocState, name: string): Layer {
  const l = layersNamed(s, name)[0];
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

function pixel(l: Layer, x: number, y: number): number[] {
  const r = (l as PixelLayer).raster;
  const o = ((y - r.y) * r.w + (x - r.x)) * 4;
  return [r.data[o]!, r.data[o + 1]!, r.data[o + 2]!, r.data[o + 3]!];
}

/** Expects the call to fail with `code` and to change neither the documents nor the garment memory. */
async function refuses(session: Session, name: string, args: unknown, code: string) {
  const before = hashEditor(session.editor.snapshot);
  const memory = session.garment;
  const photo = session.garmentPhoto;
  const r = await call(session, name, args);
  expect(r.ok, `${name} should fail`).toBe(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.error.code).toBe(code);
  expect(hashEditor(session.editor.snapshot), 'documents unchanged').toBe(before);
  expect(session.garment, 'garment memory unchanged').toBe(memory);
  expect(session.garmentPhoto).toBe(photo);
  return r.error;
}

/** Equal up to 1 per channel (bilinear sampling rounds floating-point positions). */
function close(a: number[], b: number[]): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= 1);
}

type Piece = { name: string; type: string; color?: string };

async function workflow(names: keyof typeof NAMES, photo: Parameters<typeof usePhoto>[1]) {
  const session = newSession();
  await garmentDocument(session, names);
  await usePhoto(session, photo);
  const identify = await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  return { session, identify, preview, proposed: preview.proposed_pieces as Piece[] };
}

/**
 * Meaningless names: the body and the collar are read from shape; the synthetic sleeves (capless, slanted
 * trapezoids, unlike any drafted sleeve the model learned from) are sleeves, or else the answer asks the user
 * to confirm them — never a silent wrong part.
 */
function expectBodyAndSleeves(r: Record<string, unknown>, n: (typeof NAMES)['none']): void {
  const pieces = r.pieces as { name: string; part: string; alternative?: string }[];
  const part = (name: string) => pieces.find((p) => p.name === name)!;
  expect(part(n.front).part).toBe('front');
  expect(part(n.back).part).toBe('back');
  expect(part(n.collar).part).toBe('collar');
  for (const name of [n.left, n.right]) {
    const p = part(name);
    if (p.part.endsWith('_sleeve')) continue;
    expect(r.needs_confirmation, `${name} is ${p.part} without confirmation`).toBe(true);
    expect(p.alternative).toBeDefined();
    expect(r.confirmation).toContain(`“${name}”`);
  }
}

describe('identify_pieces', () => {
  for (const names of ['zh', 'en', 'none'] as const) {
    it(`maps parts ${names === 'none' ? 'from shape alone (meaningless names)' : `from ${names} names`} and pairs the sleeves`, async () => {
      const session = newSession();
      await garmentDocument(session, names);
      const r = await ok(session, 'identify_pieces');
      const parts = Object.fromEntries(
        (r.pieces as { name: string; part: string }[]).map((p) => [p.name, p.part]),
      );
      const n = NAMES[names];
      if (names === 'none') expectBodyAndSleeves(r, n);
      else
        expect(parts).toEqual({
          [n.front]: 'front',
          [n.back]: 'back',
          [n.left]: 'left_sleeve',
          [n.right]: 'right_sleeve',
          [n.collar]: 'collar',
        });
      expect(r.pairs).toEqual([[n.left, n.right]]);
      const decided = Object.fromEntries(
        (r.pieces as { name: string; decided_by: string }[]).map((p) => [p.name, p.decided_by]),
      );
      if (names === 'none') {
        expect(decided[n.left]).toBe('pair');
        expect(decided[n.front]).toBe('shape');
      } else expect(new Set(Object.values(decided))).toEqual(new Set(['name']));
      // The labelled overview image is a real PNG of the pieces.
      const img = (r.images as { mime: string; base64: string }[])[0]!;
      expect(img.mime).toBe('image/png');
      const meta = await sharp(Buffer.from(img.base64, 'base64')).metadata();
      expect(meta.width).toBeGreaterThan(500);
      // The same picture with its labels in English, for the studio's English mode: the pieces as they are in
      // the Chinese one, only the words differ.
      const en = (img as { base64En?: string }).base64En;
      expect(en, 'an English picture').toBeDefined();
      const [zhPixels, enPixels] = await Promise.all(
        [img.base64, en!].map((b) =>
          sharp(Buffer.from(b, 'base64')).raw().toBuffer({ resolveWithObject: true }),
        ),
      );
      expect(enPixels!.info.width).toBe(zhPixels!.info.width);
      let same = 0;
      for (let i = 0; i < zhPixels!.data.length; i++) if (zhPixels!.data[i] === enPixels!.data[i]) same++;
      // Measured 0.95–0.97 of the bytes alike: the labels are a few percent of the picture.
      expect(same / zhPixels!.data.length).toBeGreaterThan(0.9);
      expect(same).toBeLessThan(zhPixels!.data.length);
      // Its caption reads the pieces in the parts' order, not in the marker's (deliberately mixed) layer order.
      // A layer named as its part is said once (前片, not 前片 = 前片).
      if (names === 'zh') {
        expect((img as { caption?: string }).caption).toContain('：前片，后片，左袖，右袖，领');
        expect((img as { captionEn?: string }).captionEn).toContain(
          '前片 = Front, 后片 = Back, 左袖 = Left sleeve, 右袖 = Right sleeve, 领 = Collar',
        );
      } else if (names === 'en') {
        expect((img as { caption?: string }).caption).toContain(
          `${n.front} = 前片，${n.back} = 后片，${n.left} = 左袖，${n.right} = 右袖，${n.collar} = 领`,
        );
        // And in English, for the studio's English mode.
        expect((img as { captionEn?: string }).captionEn).toContain(
          `Front, Back, ${n.left} = Left sleeve, ${n.right} = Right sleeve, Collar`,
        );
      }
      expect(r.next).toMatch(/set_garment_photo|generate_garment_preview/);
    });
  }

  it('proposes types and colours from the photo', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    await usePhoto(session, 'fill');
    const fill = await ok(session, 'identify_pieces');
    const proposals = fill.proposed_pieces as Piece[];
    expect(new Set(proposals.map((p) => p.type))).toEqual(new Set(['fill_pattern']));
    for (const p of proposals) expect(deltaE00(labOfHex(p.color!), labOfHex(GROUND))).toBeLessThan(5);

    await usePhoto(session, 'theme');
    const theme = await ok(session, 'identify_pieces');
    const byName = Object.fromEntries((theme.proposed_pieces as Piece[]).map((p) => [p.name, p]));
    expect(byName.前片!.type).toBe('theme_pattern');
    for (const k of ['后片', '左袖', '右袖', '领']) expect(byName[k]!.type).toBe('solid');
    expect(deltaE00(labOfHex(byName.前片!.color!), labOfHex(THEME_GROUND))).toBeLessThan(5);

    await usePhoto(session, 'mixed');
    const mixed = await ok(session, 'identify_pieces');
    const m = Object.fromEntries((mixed.proposed_pieces as Piece[]).map((p) => [p.name, p.type]));
    expect(m).toEqual({
      前片: 'mixed_pattern',
      后片: 'fill_pattern',
      左袖: 'fill_pattern',
      右袖: 'fill_pattern',
      领: 'fill_pattern',
    });

    await usePhoto(session, 'solid');
    const solid = await ok(session, 'identify_pieces');
    expect(new Set((solid.proposed_pieces as Piece[]).map((p) => p.type))).toEqual(new Set(['solid']));
  });

  it('proposes solid, never theme_pattern, for a plain T-shirt with a neck opening and fold shadows', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    const photo = { ground: '#b22234', background: '#d8d8d8', neck: 'background', shadow: 0.35 } as const;
    await session.workspace.writeAtomic('plain.png', await plainGarmentPhoto(photo));
    await ok(session, 'set_garment_photo', { path: 'plain.png' });
    const r = await ok(session, 'identify_pieces');
    const proposals = r.proposed_pieces as Piece[];
    expect(new Set(proposals.map((p) => p.type))).toEqual(new Set(['solid']));
    for (const p of proposals) expect(deltaE00(labOfHex(p.color!), labOfHex(photo.ground))).toBeLessThan(5);
    const analysis = r.photo_analysis as {
      kind: string;
      motif: { found: boolean };
      not_print: { kind: string }[];
    };
    expect(analysis.kind).toBe('solid');
    expect(analysis.motif.found).toBe(false);
    expect(analysis.not_print.map((n) => n.kind).sort()).toEqual(['fold_shadow', 'neck_opening']);
    await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: proposals });
    const v = await ok(session, 'verify_pattern_result');
    expect(v.score).toBeGreaterThanOrEqual(8);
    expect((v.suggestions as string[]).join()).not.toMatch(/theme_pattern/);
  });

  it('refuses a document without piece layers, changing nothing', async () => {
    const session = newSession();
    await refuses(session, 'identify_pieces', {}, 'no_document');
    await ok(session, 'create_document', { width: 100, height: 100 });
    await ok(session, 'create_text_layer', { text: '前片', x: 10, y: 10, font_size: 20 });
    const err = await refuses(session, 'identify_pieces', {}, 'invalid_state');
    expect(err.hint).toMatch(/像素图层/);
  });
});

describe('pieces placed with place_image (smart objects)', () => {
  it('are identified like pixel pieces and stay smart objects as the clipping base of their print', async () => {
    const session = newSession();
    await placedGarmentDocument(session, 'none');
    const s0 = state(session);
    const n = NAMES.none;
    expect(named(s0, n.front).kind).toBe('smart');
    await usePhoto(session, 'fill');
    const r = await ok(session, 'identify_pieces');
    expectBodyAndSleeves(r, n);
    expect(r.pairs).toEqual([[n.left, n.right]]);
    await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', {
      pieces: Object.values(n).map((name) => ({ name, type: 'fill_pattern' })),
    });
    const s = state(session);
    for (const name of Object.values(n)) {
      const base = named(s, name);
      expect(base.kind, 'the piece is kept as a smart object').toBe('smart');
      const kids = childrenOf(s, parentOf(s, base.id)!);
      expect(kids[0]).toBe(base.id);
      expect(s.layers.get(kids[1]!)!.clipped).toBe(true);
    }
    // The print shows inside the pieces and nowhere else.
    const tx = session.editor.begin();
    const canvas = tx.peekComposite(tx.activeDocument().id);
    let inside = 0;
    let printed = 0;
    let outsideChanged = 0;
    for (const p of Object.values(PIECES)) {
      for (let v = 0; v < p.h; v += 3) {
        for (let u = 0; u < p.w; u += 3) {
          const o = ((p.y + v) * DOC.width + p.x + u) * 4;
          const grey = canvas.data[o] === 220 && canvas.data[o + 1] === 220 && canvas.data[o + 2] === 220;
          if (p.inside(u, v)) {
            inside++;
            if (!grey) printed++;
          } else if (canvas.data[o] !== 255 || canvas.data[o + 1] !== 255 || canvas.data[o + 2] !== 255) {
            outsideChanged++;
          }
        }
      }
    }
    expect(printed / inside).toBe(1);
    expect(outsideChanged).toBe(0);
    const v = await ok(session, 'verify_pattern_result');
    expect(v.score).toBeGreaterThanOrEqual(8);
    // Photoshop's view of the saved file: a smart object with its print clipped to it.
    if (psdToolsAvailable()) {
      await ok(session, 'save_document_as', { path: 'placed.psd' });
      const { dump } = await readWithPsdTools(await session.workspace.read('placed.psd'));
      const flat = flattenPsdTools(dump.layers);
      const front = flat.find((l) => l.name === n.front)!;
      expect(front.kind).toBe('smartobject');
      expect(front.path).toBe(`${n.front} 花样/${n.front}`);
      const fill = flat.find((l) => l.name === `${n.front} 满印`)!;
      expect(fill.clipping).toBe(true);
      expect(fill.path).toBe(`${n.front} 花样/${n.front} 满印`);
    }
  });
});

describe('generate_garment_preview', () => {
  let run: Awaited<ReturnType<typeof workflow>>;
  beforeAll(async () => {
    run = await workflow('zh', 'fill');
  });

  it('recovers the repeat period (±1 px) and the palette (ΔE00 < 5) and returns an outlined preview', async () => {
    const ext = run.preview.extraction as {
      repeat: {
        found: boolean;
        tile_width: number;
        tile_height: number;
        layout: string;
        document_tile_width: number;
      };
      palette: { hex: string }[];
      reused: boolean;
    };
    expect(ext.repeat.found).toBe(true);
    expect(Math.abs(ext.repeat.tile_width - TILE)).toBeLessThanOrEqual(1);
    expect(Math.abs(ext.repeat.tile_height - TILE)).toBeLessThanOrEqual(1);
    expect(ext.repeat.layout).toBe('block');
    expect(ext.repeat.document_tile_width).toBeCloseTo(TILE * EXPECTED_SCALE, 0);
    expect(ext.reused, 'the print was extracted once, by identify_pieces').toBe(true);
    for (const truth of [GROUND, NAVY, RED]) {
      const best = Math.min(...ext.palette.map((c) => deltaE00(labOfHex(c.hex), labOfHex(truth))));
      expect(best, `palette has ${truth}`).toBeLessThan(5);
    }
    const img = (run.preview.images as { base64: string }[])[0]!;
    const { data, info } = await sharp(Buffer.from(img.base64, 'base64'))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(800);
    // Navy from the print is in the picture (the pieces are filled, not just outlined).
    let navy = 0;
    for (let i = 0; i < data.length; i += info.channels)
      if (data[i]! < 60 && data[i + 2]! > 80 && data[i + 2]! < 130) navy++;
    expect(navy).toBeGreaterThan(1000);
    expect(run.preview.next).toMatch(/extract_and_apply_all_pieces/);
  });

  it('reports a plaid at its full tile with its confidence, and the shorter lattice it rejected', async () => {
    const plaid = await workflow('zh', 'plaid');
    const repeat = (plaid.preview.extraction as { repeat: Record<string, unknown> }).repeat as {
      tile_width: number;
      tile_height: number;
      confidence: number;
      shorter_candidate_rejected: { vectors: number[][]; confidence: number };
    };
    expect([repeat.tile_width, repeat.tile_height]).toEqual([PLAID_TILE, PLAID_TILE]);
    expect(repeat.confidence).toBeGreaterThan(0.9);
    const rejected = repeat.shorter_candidate_rejected;
    expect(rejected.vectors.map((v) => Math.hypot(v[0]!, v[1]!))).toEqual([28, 28]);
    expect(rejected.confidence).toBeLessThan(repeat.confidence);
  });

  it('reads a white print on a white studio background at the right scale, without the background', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    const photo = { ground: '#fbfbf9', background: '#ffffff', print: 'dots', castShadow: true } as const;
    await session.workspace.writeAtomic('white.png', await lightGroundPhoto(photo));
    await ok(session, 'set_garment_photo', { path: 'white.png' });
    await ok(session, 'identify_pieces');
    const r = await ok(session, 'generate_garment_preview');
    const ext = r.extraction as {
      garment_in_photo: string;
      kind: string;
      palette: { hex: string }[];
      repeat: { document_tile_width: number };
    };
    expect(ext.garment_in_photo).toBe('silhouette');
    expect(ext.kind).toBe('fill_pattern');
    // 64 photo px at the body-width scale (375 / 300) is 80 document px; within ±10 %.
    const want = LIGHT_PERIOD.dots * EXPECTED_SCALE;
    expect(Math.abs(ext.repeat.document_tile_width / want - 1)).toBeLessThanOrEqual(0.1);
    const scale = (r.placement as { scale: number }).scale;
    expect(Math.abs(scale / EXPECTED_SCALE - 1)).toBeLessThanOrEqual(0.1);
    // White ground and red dots; the white background is not taken for a colour of the print.
    expect(deltaE00(labOfHex(ext.palette[0]!.hex), labOfHex(photo.ground))).toBeLessThan(4);
    expect(ext.palette.some((c) => deltaE00(labOfHex(c.hex), labOfHex('#d0312d')) < 6)).toBe(true);
    expect(ext.palette).toHaveLength(2);
  });

  it('does not change the document', async () => {
    const before = hashEditor(run.session.editor.snapshot);
    await ok(run.session, 'generate_garment_preview');
    expect(hashEditor(run.session.editor.snapshot)).toBe(before);
  });

  it('refuses without a photo or without identify_pieces, changing nothing', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    const noPhoto = await refuses(session, 'generate_garment_preview', {}, 'invalid_state');
    expect(noPhoto.hint).toMatch(/set_garment_photo/);
    await usePhoto(session, 'fill');
    const noIdentify = await refuses(session, 'generate_garment_preview', {}, 'invalid_state');
    expect(noIdentify.hint).toMatch(/identify_pieces/);
  });
});

describe('extract_and_apply_all_pieces', () => {
  it('refuses before the preview, unknown pieces, and missing colours — changing nothing', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    await usePhoto(session, 'fill');
    await ok(session, 'identify_pieces');
    const pieces = [{ name: '前片', type: 'fill_pattern' }];
    const early = await refuses(session, 'extract_and_apply_all_pieces', { pieces }, 'invalid_state');
    expect(early.hint).toMatch(/generate_garment_preview/);
    await ok(session, 'generate_garment_preview');
    const unknown = await refuses(
      session,
      'extract_and_apply_all_pieces',
      { pieces: [...pieces, { name: '前 片', type: 'fill_pattern' }] },
      'not_found',
    );
    expect((unknown.details as { closest: string[] }).closest).toContain('前片');
    const noColor = await refuses(
      session,
      'extract_and_apply_all_pieces',
      { pieces: [...pieces, { name: '领', type: 'solid' }] },
      'invalid_arguments',
    );
    expect(noColor.message).toContain('领');
    // The fill photo has no motif: a theme layer cannot be made honestly.
    await refuses(
      session,
      'extract_and_apply_all_pieces',
      { pieces: [{ name: '后片', type: 'theme_pattern', color: '#ffffff' }] },
      'invalid_state',
    );
    await refuses(session, 'verify_pattern_result', {}, 'invalid_state');
  });

  it('builds a group per piece with the right clipped layers and blend modes, in one history step', async () => {
    const { session } = await workflow('zh', 'mixed');
    const doc = session.editor.snapshot.docs[0]!;
    const steps = doc.history.states.length;
    const r = await ok(session, 'extract_and_apply_all_pieces', {
      pieces: [
        { name: '前片', type: 'mixed_pattern' },
        { name: '后片', type: 'theme_pattern', color: '#e8dcc4' },
        { name: '左袖', type: 'fill_pattern' },
        { name: '右袖', type: 'fill_pattern' },
        { name: '领', type: 'solid', color: '#1f3a68' },
      ],
    });
    expect(r.history_steps).toBe(1);
    expect(session.editor.snapshot.docs[0]!.history.states.length).toBe(steps + 1);
    const s = state(session);
    const expectGroup = (piece: string, layers: [string, string][]) => {
      const base = named(s, piece);
      const gid = parentOf(s, base.id);
      expect(gid).not.toBeNull();
      const group = s.layers.get(gid!) as GroupLayer;
      expect(group.name).toBe(`${piece} 花样`);
      const kids = childrenOf(s, group.id).map((id) => s.layers.get(id)!);
      expect(kids[0]!.id, 'the piece is the clipping base').toBe(base.id);
      expect(kids[0]!.clipped).toBe(false);
      expect(kids.slice(1).map((l) => [l.name, l.blend])).toEqual(layers);
      for (const l of kids.slice(1)) expect(l.clipped).toBe(true);
    };
    expectGroup('前片', [
      ['前片 满印', 'normal'],
      ['前片 主题图案', 'multiply'],
    ]);
    expectGroup('后片', [
      ['后片 底色', 'normal'],
      ['后片 主题图案', 'multiply'],
    ]);
    expectGroup('左袖', [['左袖 满印', 'normal']]);
    expectGroup('领', [['领 底色', 'normal']]);
    // Solid and theme bottoms are exactly the given colour.
    const collar = named(s, '领 底色');
    expect(pixel(collar, PIECES.collar.x + 5, PIECES.collar.y + 5)).toEqual([0x1f, 0x3a, 0x68, 255]);
    // The motif layer is white away from the motif (a no-op under multiply).
    const motif = named(s, '后片 主题图案');
    expect(pixel(motif, PIECES.back.x + 5, PIECES.back.y + 430)).toEqual([255, 255, 255, 255]);

    // The composite shows print only inside the pieces: outside them the white background is untouched.
    const tx = session.editor.begin();
    const canvas = tx.peekComposite(tx.activeDocument().id);
    let outsideChanged = 0;
    let insideGrey = 0;
    const inside = new Uint8Array(DOC.width * DOC.height);
    for (const p of Object.values(PIECES)) {
      for (let v = 0; v < p.h; v++)
        for (let u = 0; u < p.w; u++) if (p.inside(u, v)) inside[(p.y + v) * DOC.width + p.x + u] = 1;
    }
    for (let i = 0; i < inside.length; i++) {
      const [r0, g0, b0] = [canvas.data[i * 4]!, canvas.data[i * 4 + 1]!, canvas.data[i * 4 + 2]!];
      if (!inside[i] && (r0 !== 255 || g0 !== 255 || b0 !== 255)) outsideChanged++;
      if (inside[i] && r0 === 220 && g0 === 220 && b0 === 220) insideGrey++;
    }
    expect(outsideChanged).toBe(0);
    expect(insideGrey, 'no bare piece left inside').toBe(0);

    // Applying again replaces the print layers in the same groups, and undo walks back one step.
    await ok(session, 'extract_and_apply_all_pieces', { pieces: [{ name: '领', type: 'fill_pattern' }] });
    const s2 = state(session);
    expect(layersNamed(s2, '领 花样')).toHaveLength(1);
    expect(layersNamed(s2, '领 底色')).toHaveLength(0);
    expect(layersNamed(s2, '领 满印')).toHaveLength(1);
    await ok(session, 'undo', { steps: 2 });
    expect(layersNamed(state(session), '前片 花样')).toHaveLength(0);
  });

  for (const [kind, truth, blend] of [
    ['star', STAR, 'normal'],
    ['pale_star', PALE_STAR, 'multiply'],
  ] as const) {
    it(`keeps a ${kind === 'star' ? 'light motif on a dark base visible (cut out, normal mode)' : 'light motif on a light base in multiply on white'}`, async () => {
      const run = await workflow('zh', kind);
      const front = run.proposed.find((p) => p.name === '前片')!;
      expect(front.type).toBe('theme_pattern');
      expect(deltaE00(labOfHex(front.color!), labOfHex(truth.ground))).toBeLessThan(5);
      const said = run.preview.motif_layers as { piece: string; blend_mode: string; reason: string }[];
      expect(said).toEqual([expect.objectContaining({ piece: '前片', blend_mode: blend })]);
      const r = await ok(run.session, 'extract_and_apply_all_pieces', { pieces: run.proposed });
      const applied = (r.applied as { piece: string; motif_layer?: { blend_mode: string } }[]).find(
        (a) => a.piece === '前片',
      )!;
      expect(applied.motif_layer?.blend_mode).toBe(blend);
      const s = state(run.session);
      const layer = named(s, '前片 主题图案');
      expect(layer.blend).toBe(blend);
      expect(layer.clipped, 'still its own editable layer, clipped to the piece').toBe(true);
      // Away from the motif the layer is a no-op: transparent (normal) or white (multiply).
      const corner = pixel(layer, PIECES.front.x + 20, PIECES.front.y + 420);
      expect(corner).toEqual(blend === 'normal' ? [0, 0, 0, 0] : [255, 255, 255, 255]);
      // The star shows in its own colour on the composite: its centre is 180 photo px below the garment top,
      // on the centre line, at the placement's scale.
      const tx = run.session.editor.begin();
      const canvas = tx.peekComposite(tx.activeDocument().id);
      const cx = Math.round(PIECES.front.x + PIECES.front.w / 2);
      const cy = Math.round(PIECES.front.y + 180 * EXPECTED_SCALE);
      let worst = 0;
      for (let dy = -10; dy <= 10; dy += 2) {
        for (let dx = -10; dx <= 10; dx += 2) {
          const o = ((cy + dy) * DOC.width + cx + dx) * 4;
          const got = `#${[0, 1, 2].map((k) => canvas.data[o + k]!.toString(16).padStart(2, '0')).join('')}`;
          worst = Math.max(worst, deltaE00(labOfHex(got), labOfHex(truth.motif)));
        }
      }
      expect(worst, 'ΔE00 of the motif centre from the star colour').toBeLessThan(6);
      const v = await ok(run.session, 'verify_pattern_result');
      expect((v.suggestions as string[]).join()).not.toMatch(/应使用 theme_pattern/);
    });
  }

  it('runs the repeat on from the front into the back across the side seam and mirrors the paired sleeves', async () => {
    const { session, proposed } = await workflow('zh', 'fill');
    const r = await ok(session, 'extract_and_apply_all_pieces', { pieces: proposed });
    expect((r.seams as string[]).join()).toMatch(/侧缝对花/);
    const s = state(session);
    const front = named(s, '前片 满印');
    const back = named(s, '后片 满印');
    const period = TILE * EXPECTED_SCALE; // 80 document px
    expect((r.seams as string[]).join()).toContain(`缝份 ${SIDE_SEAM_ALLOWANCE_MM} mm`);
    // The fabric meets at the seam lines, the seam allowance inside each cut edge (these panels' sides are
    // straight below the armholes). Unrolled around the body, the back's column j past its seam line is the
    // front's column j past its own, which one period back lies inside the front. Same height, same row.
    const sa = Math.round((SIDE_SEAM_ALLOWANCE_MM / 25.4) * DOC.dpi);
    const frontSeam = PIECES.front.x + PIECES.front.w - sa;
    const backSeam = PIECES.back.x + sa;
    let same = 0;
    let total = 0;
    let offPhase = 0;
    let atCutEdge = 0;
    for (let y = 250; y < 470; y += 5) {
      for (let j = 0; j < period / 2; j += 3) {
        total++;
        const want = pixel(front, frontSeam + j - period, y);
        if (close(pixel(back, backSeam + j, y), want)) same++;
        if (close(pixel(back, backSeam + j + period / 2, y), want)) offPhase++;
        // Matching the cut edges instead (no seam allowance) would put the print 2 × 59 px off.
        if (
          close(
            pixel(back, PIECES.back.x + j, y),
            pixel(front, PIECES.front.x + PIECES.front.w + j - period, y),
          )
        )
          atCutEdge++;
      }
    }
    expect(atCutEdge / total, 'the cut edges are not where the print meets').toBeLessThan(0.9);
    expect(same / total, 'the print continues across the side seam').toBe(1);
    expect(offPhase / total, 'half a period off does not match').toBeLessThan(0.9);
    // Sleeves: the right one is the exact mirror image of the left.
    const left = named(s, '左袖 满印') as PixelLayer;
    const right = named(s, '右袖 满印') as PixelLayer;
    expect(right.raster.w).toBe(left.raster.w);
    let mirrored = 0;
    let checked = 0;
    for (let y = 0; y < left.raster.h; y += 3) {
      for (let dx = 0; dx < left.raster.w; dx += 3) {
        checked++;
        const a = pixel(left, left.raster.x + dx, left.raster.y + y).join();
        const b = pixel(right, right.raster.x + right.raster.w - 1 - dx, right.raster.y + y).join();
        if (a === b) mirrored++;
      }
    }
    expect(mirrored / checked).toBe(1);
  });
});

describe('seams', () => {
  it('continues stripes across the side seams when the back lies lower on the marker than the front', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    const drop = 23; // not a whole number of stripes (50 document px)
    await ok(session, 'move_layer', { name: '后片', dx: 0, dy: drop });
    await usePhoto(session, 'stripes');
    await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    expect(((preview.placement as { seams: string[] }).seams ?? []).join()).toMatch(/下摆对齐/);
    const repeat = (preview.extraction as { repeat: { tile_width: number; tile_height: number } }).repeat;
    expect([repeat.tile_width, repeat.tile_height], 'stripes: one period square').toEqual([
      STRIPE.period,
      STRIPE.period,
    ]);
    const r = await ok(session, 'extract_and_apply_all_pieces', {
      pieces: ['前片', '后片', '左袖', '右袖', '领'].map((name) => ({ name, type: 'fill_pattern' })),
    });
    expect((r.seams as string[]).join()).toMatch(/侧缝对花/);
    const s = state(session);
    const front = named(s, '前片 满印');
    const back = named(s, '后片 满印');
    const frontHem = PIECES.front.y + PIECES.front.h - 1;
    const backHem = PIECES.back.y + drop + PIECES.back.h - 1;
    const navy = (p: number[]) => p[2]! > p[0]! + 40; // the navy band, not the cream ground
    let seams = 0;
    let sameRow = 0;
    let navyRows = 0;
    const rows = 200;
    for (let k = 0; k < rows; k++) {
      const f = pixel(front, PIECES.front.x + PIECES.front.w - 1, frontHem - k); // front's right side seam
      const b = pixel(back, PIECES.back.x, backHem - k); // back's left side seam, at the same garment height
      const b2 = pixel(back, PIECES.back.x + PIECES.back.w - 1, backHem - k); // back's right side seam
      const f2 = pixel(front, PIECES.front.x, frontHem - k); // front's left side seam
      if (navy(f)) navyRows++;
      if (navy(f) === navy(b) && navy(f2) === navy(b2)) seams++;
      if (navy(f) === navy(pixel(back, PIECES.back.x, frontHem - k))) sameRow++;
    }
    expect(navyRows / rows, 'the stripes are there').toBeGreaterThan(0.2);
    expect(seams / rows, 'both side seams: stripe meets stripe at every height').toBeGreaterThanOrEqual(0.97);
    // The same document row is not the same garment height: matching by document position would break them.
    expect(sameRow / rows).toBeLessThan(0.8);
  });
});

describe('verify_pattern_result', () => {
  it('scores a correct application high and wrong colour, wrong scale and a missing piece low, with suggestions', async () => {
    const scores: Record<string, number> = {};
    const good = await workflow('en', 'fill');
    await ok(good.session, 'extract_and_apply_all_pieces', { pieces: good.proposed });
    const before = hashEditor(good.session.editor.snapshot);
    const v = await ok(good.session, 'verify_pattern_result');
    expect(hashEditor(good.session.editor.snapshot), 'verify is a query').toBe(before);
    scores.good = v.score as number;
    expect(v.score).toBeGreaterThanOrEqual(8);
    expect(v.delta_e_formula).toBe('CIEDE2000');
    // The apply undone, there is no result to score (not a bare marker scored as a bad print); redone, there is.
    await ok(good.session, 'undo');
    const undone = await refuses(good.session, 'verify_pattern_result', {}, 'invalid_state');
    expect(undone.message).toContain('已没有套图结果');
    await ok(good.session, 'redo');
    expect((await ok(good.session, 'verify_pattern_result')).score).toBe(v.score);

    // Wrong colour: every piece a flat blue.
    const wrong = await workflow('en', 'fill');
    await ok(wrong.session, 'extract_and_apply_all_pieces', {
      pieces: wrong.proposed.map((p) => ({ name: p.name, type: 'solid', color: '#3366ff' })),
    });
    const vc = await ok(wrong.session, 'verify_pattern_result');
    scores.colour = vc.score as number;
    expect((vc.suggestions as string[]).join()).toMatch(/配色/);

    // Wrong scale: the fills replaced by the same print at twice the size.
    const scaled = await workflow('en', 'fill');
    await ok(scaled.session, 'extract_and_apply_all_pieces', { pieces: scaled.proposed });
    {
      const tx = scaled.session.editor.begin();
      const doc = tx.activeDocument();
      let s = doc.state;
      const ext = scaled.session.garment.extraction!;
      const pl = scaled.session.garment.applied!.placement;
      for (const name of ['Front', 'Back', 'Sleeve L', 'Sleeve R', 'Collar']) {
        const l = named(s, `${name} 满印`) as PixelLayer;
        const raster = fillRaster(ext, { ...pl, scale: pl.scale * 2 }, l.raster, null);
        const layers = new Map(s.layers);
        layers.set(l.id, { ...l, raster });
        s = { ...s, layers };
      }
      tx.update(doc.id, s);
      scaled.session.editor.commit(tx, 'test', true);
    }
    const vs = await ok(scaled.session, 'verify_pattern_result');
    scores.scale = vs.score as number;
    expect((vs.suggestions as string[]).join()).toMatch(/方向或大小与照片不同/);

    // A missing piece: the right sleeve is left bare.
    const missing = await workflow('en', 'fill');
    await ok(missing.session, 'extract_and_apply_all_pieces', {
      pieces: missing.proposed.filter((p) => p.name !== 'Sleeve R'),
    });
    const vm = await ok(missing.session, 'verify_pattern_result');
    scores.missing = vm.score as number;
    expect((vm.suggestions as string[]).join()).toMatch(/Sleeve R/);

    expect(scores.colour).toBeLessThanOrEqual(5);
    expect(scores.scale).toBeLessThanOrEqual(5);
    expect(scores.missing).toBeLessThanOrEqual(5);
  });

  it('finds the motif of a theme garment and misses it when only the ground was applied', async () => {
    const run = await workflow('zh', 'theme');
    await ok(run.session, 'extract_and_apply_all_pieces', { pieces: run.proposed });
    const good = await ok(run.session, 'verify_pattern_result');
    expect(good.score).toBeGreaterThanOrEqual(8);
    await ok(run.session, 'extract_and_apply_all_pieces', {
      pieces: run.proposed.map((p) => ({ ...p, type: 'solid' })),
    });
    const bare = await ok(run.session, 'verify_pattern_result');
    const motif = (bare.measures as { measure: string; score: number }[]).find((m) => m.measure === 'motif')!;
    expect(motif.score).toBeLessThan(0.5);
    expect(bare.score).toBeLessThan(good.score as number);
    expect((bare.suggestions as string[]).join()).toMatch(/主题图案/);
  });
});

describe('set_garment_photo', () => {
  it('refuses files that are not PNG/JPEG images or do not exist, changing nothing', async () => {
    const session = newSession();
    await session.workspace.writeAtomic('notes.txt', Buffer.from('hello'));
    await refuses(session, 'set_garment_photo', { path: 'notes.txt' }, 'unsupported');
    await refuses(session, 'set_garment_photo', { path: 'missing.png' }, 'not_found');
    await refuses(session, 'set_garment_photo', { path: '../outside.png' }, 'invalid_arguments');
    // Too small to read a print from: refused; small but usable: taken, with a warning.
    const solid = (side: number) =>
      sharp({ create: { width: side, height: side, channels: 3, background: '#c04020' } })
        .png()
        .toBuffer();
    await session.workspace.writeAtomic('tiny.png', await solid(40));
    await refuses(session, 'set_garment_photo', { path: 'tiny.png' }, 'invalid_arguments');
    expect(session.garmentPhoto).toBeNull();
    await session.workspace.writeAtomic('small.png', await solid(120));
    const small = await ok(session, 'set_garment_photo', { path: 'small.png' });
    expect(small.warnings as string[]).toEqual([expect.stringContaining('120×120')]);
  });

  it('is idempotent and a new photo drops the old extraction', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    await usePhoto(session, 'fill', 'a.png');
    await ok(session, 'identify_pieces');
    const memory = session.garment;
    await ok(session, 'set_garment_photo', { path: 'a.png' });
    expect(session.garment).toBe(memory);
    await usePhoto(session, 'solid', 'b.png');
    expect(session.garment.extraction).toBeNull();
    expect(session.garment.analysis?.pieces.length).toBe(5);
  });
});

describe('examples/garment', () => {
  it('runs flow.jsonl as it is: the right parts for meaningless layer names, and good scores for all three photos', async () => {
    const ws = tempDir();
    const dir = join(ROOT, 'examples/garment');
    for (const f of ['pieces.psd', 'photo-allover.jpg', 'photo-motif.jpg', 'photo-solid.jpg'])
      copyFileSync(join(dir, f), join(ws, f));
    const session = newSession(ws);
    const results: { name: string; result: Record<string, unknown> }[] = [];
    for (const line of readFileSync(join(dir, 'flow.jsonl'), 'utf8').trim().split('\n')) {
      const c = JSON.parse(line) as { name: string; arguments: unknown };
      results.push({ name: c.name, result: await ok(session, c.name, c.arguments) });
    }
    const identify = results.find((r) => r.name === 'identify_pieces')!.result;
    const parts = Object.fromEntries(
      (identify.pieces as { name: string; part: string }[]).map((p) => [p.name, p.part]),
    );
    expect(parts).toEqual({
      '图层 1': 'back',
      '图层 2': 'right_sleeve',
      '图层 3': 'front',
      '图层 4': 'left_sleeve',
    });
    const previews = results.filter((r) => r.name === 'generate_garment_preview').map((r) => r.result);
    expect(previews.map((p) => (p.extraction as { kind: string }).kind)).toEqual([
      'fill_pattern',
      'theme_pattern',
      'solid',
    ]);
    const scores = results
      .filter((r) => r.name === 'verify_pattern_result')
      .map((r) => r.result.score as number);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(8);
    for (const f of ['allover', 'motif', 'solid']) expect(existsSync(join(ws, `out/${f}.psd`))).toBe(true);
  }, 120_000);

  it('scores a print from a fabric swatch on what the swatch shows, not on the garment it does not show', async () => {
    const ws = tempDir();
    const dir = join(ROOT, 'examples/garment');
    copyFileSync(join(dir, 'pieces.psd'), join(ws, 'pieces.psd'));
    // All fabric: the all-over photo's middle, as a designer would photograph a swatch.
    const swatch = await sharp(join(dir, 'photo-allover.jpg'))
      .extract({ left: 250, top: 350, width: 300, height: 300 })
      .jpeg()
      .toBuffer();
    const session = newSession(ws);
    await session.workspace.writeAtomic('swatch.jpg', swatch);
    await ok(session, 'open_document', { path: 'pieces.psd' });
    await ok(session, 'set_garment_photo', { path: 'swatch.jpg' });
    const found = await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    expect((preview.extraction as { garment_in_photo: string }).garment_in_photo).toBe('swatch');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const verified = await ok(session, 'verify_pattern_result');
    // Before, the garment comparison found no cell on the swatch, scored 0 and said "ΔE Infinity".
    expect(JSON.stringify(verified)).not.toContain('Infinity');
    const measures = new Map(
      (verified.measures as { measure: string; score: number }[]).map((m) => [m.measure, m.score]),
    );
    expect(measures.has('photo')).toBe(false);
    // What the swatch does show, the print's colours and its repeat, is compared and matches.
    expect(measures.get('palette')).toBeGreaterThanOrEqual(0.9);
    expect(measures.get('texture')).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});

describe('atelier run', () => {
  it('runs the whole workflow from a JSONL script, set_garment_photo included', async () => {
    const ws = tempDir();
    const builder = newSession(ws);
    await garmentDocument(builder, 'zh');
    await ok(builder, 'save_document_as', { path: 'pieces.psd' });
    await usePhoto(builder, 'fill', 'shirt.png');
    const script = [
      { name: 'open_document', arguments: { path: 'pieces.psd' } },
      { name: 'set_garment_photo', arguments: { path: 'shirt.png' } },
      { name: 'identify_pieces', arguments: {} },
      { name: 'generate_garment_preview', arguments: {} },
      {
        name: 'extract_and_apply_all_pieces',
        arguments: {
          pieces: ['前片', '后片', '左袖', '右袖', '领'].map((name) => ({ name, type: 'fill_pattern' })),
        },
      },
      { name: 'verify_pattern_result', arguments: {} },
      { name: 'save_document_as', arguments: { path: 'out/applied.psd' } },
    ]
      .map((c) => JSON.stringify(c))
      .join('\n');
    const run = await runCli(['run', '--workspace', ws], { cwd: ROOT, input: script });
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; result: Record<string, unknown> });
    expect(lines.map((l) => [l.name, l.result.ok])).toEqual([
      ['open_document', true],
      ['set_garment_photo', true],
      ['identify_pieces', true],
      ['generate_garment_preview', true],
      ['extract_and_apply_all_pieces', true],
      ['verify_pattern_result', true],
      ['save_document_as', true],
    ]);
    expect(lines[5]!.result.score).toBeGreaterThanOrEqual(8);
    const files = lines[3]!.result.image_files as string[];
    expect(existsSync(join(ws, files[0]!))).toBe(true);
    expect(existsSync(join(ws, 'out/applied.psd'))).toBe(true);
  }, 120_000);
});
