/**
 * identify_pieces asks for confirmation instead of guessing silently: a garment whose front and back cannot be
 * told apart by shape (two body panels that differ by 2 mm at the neck) comes back with needs_confirmation, a
 * Chinese sentence naming the pieces in doubt (in the order to ask them) and their alternatives, per-piece alternatives
 * (one or two parts), an overview image that marks them, and a `next` that asks to confirm with the user; a
 * garment the model reads clearly does not.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';
import { type FsGarment, type FsPiece, loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const FIX = loadFixtures();

/** A body panel with a neckline 30 mm deep and a hem `hem` mm wide (half), as a polygon in mm (y down). */
function panel(hem: number): FsPiece['poly'] {
  const half: [number, number][] = [
    [0, 30],
    [60, 24],
    [90, 0],
    [200, 40],
    [210, 230],
    [hem, 650],
    [0, 650],
  ];
  const other = half
    .slice(1, -1)
    .reverse()
    .map(([x, y]): [number, number] => [-x, y]);
  return [...half, ...other].map(([x, y]) => [x + 230, y]);
}

const piece = (name: string, label: FsPiece['label'], poly: FsPiece['poly'], cut = 1): FsPiece => ({
  name,
  label,
  zh: name,
  en: name,
  cut,
  onFold: false,
  grainDeg: 90,
  widthMm: Math.max(...poly.map((p) => p[0])) - Math.min(...poly.map((p) => p[0])),
  heightMm: Math.max(...poly.map((p) => p[1])) - Math.min(...poly.map((p) => p[1])),
  poly,
});

async function identify(g: FsGarment, session: Session = newSession()): Promise<Record<string, unknown>> {
  await openMarker(session, marker(g, 'none', 0.5, FIX.seamAllowanceMm), g.id);
  return ok(session, 'identify_pieces');
}

const teagan = () => FIX.garments.find((g) => g.id === 'teagan-cisMaleAdult42')!;

/** The overview image's pixels in the orange that outlines the pieces in doubt, and its caption. */
async function overviewMarks(r: Record<string, unknown>): Promise<{ orange: number; caption: string }> {
  const img = (r.images as { base64: string; caption: string }[])[0]!;
  const { data, info } = await sharp(Buffer.from(img.base64, 'base64'))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let orange = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if (Math.abs(data[i]! - 230) + Math.abs(data[i + 1]! - 81) + data[i + 2]! < 30) orange++;
  return { orange, caption: img.caption };
}

/** Front and back cut from one outline (a reversible top), with Teagan's sleeves. */
function twinPanels(): FsGarment {
  return {
    id: 'twin-panels',
    design: 'Twin panels',
    size: 'M',
    set: 'drafted',
    pieces: [piece('body', 'front', panel(230), 2), teagan().pieces.find((p) => p.label === 'sleeve')!],
  };
}

type Reported = { name: string; part: string; decided_by: string; confidence: number; alternative?: string };

describe('identify_pieces when the garment-level assignment is in doubt', () => {
  it('says so, names the pieces and the alternatives, and asks to confirm with the user', async () => {
    // Front and back cut from one outline (the same neckline): nothing in the shape says which layer is which,
    // and the two are copies of one piece.
    const r = await identify(twinPanels());
    expect(r.needs_confirmation).toBe(true);
    const pieces = r.pieces as { name: string; part: string; alternative?: string; confidence: number }[];
    // The two body layers are in doubt, each between front and back, at even odds.
    const body = pieces.filter((p) => p.part === 'front' || p.part === 'back');
    expect(body).toHaveLength(2);
    for (const p of body) {
      expect(['front', 'back']).toContain(p.alternative);
      expect(p.part).not.toBe(p.alternative);
      expect(p.confidence).toBeLessThan(0.9);
    }
    const sentence = r.confirmation as string;
    for (const p of body) expect(sentence).toContain(`“${p.name}”`);
    expect(sentence).toMatch(/前片/);
    expect(sentence).toMatch(/后片/);
    expect(r.next as string).toMatch(/请其确认/);
    // The overview, the designer's map of the pieces, marks them: outlined in orange, their parts asked.
    const marks = await overviewMarks(r);
    expect(marks.orange).toBeGreaterThan(500);
    for (const p of body)
      expect(marks.caption).toContain(`${p.name} = ${p.part === 'front' ? '前片' : '后片'}？`);
    expect(marks.caption).toContain('待确认');
  });

  it('asks which panel is the front of a skirt, whose outlines do not say', async () => {
    // Front and back halves without a notch between them: which is the front is a cutting convention (a zip at
    // the back, buttons at the front).
    for (const id of ['alineskirt-M', 'penelope-cisMaleAdult42']) {
      const r = await identify(FIX.garments.find((g) => g.id === id)!);
      expect(r.needs_confirmation, id).toBe(true);
      const body = (r.pieces as Reported[]).filter((p) => p.part === 'front' || p.part === 'back');
      expect(body.length, id).toBeGreaterThanOrEqual(2);
      for (const p of body)
        expect(p.alternative, `${id} ${p.name}`).toBe(p.part === 'front' ? 'back' : 'front');
    }
  });

  it('names the next likeliest part too when it is not negligible, and asks first what helps most', async () => {
    // A tailored jacket's fronts (with a lapel) are in doubt against its back, and their own reading gives a
    // third part enough weight to offer: the designer is asked about both.
    const twos: string[] = [];
    const grouped: string[] = [];
    for (const id of ['blazer-M', 'doublebreasted-M']) {
      const r = await identify(FIX.garments.find((g) => g.id === id)!);
      type Alt = { part: string; part_label: string; confidence: number };
      const pieces = r.pieces as (Reported & { alternative_label?: string; alternatives?: Alt[] })[];
      for (const p of pieces) {
        if (!p.alternative) {
          expect(p.alternatives, `${id} ${p.name}`).toBeUndefined();
          continue;
        }
        const alts = p.alternatives!;
        // The first is the doubt's alternative; the parts are distinct and none is the part read.
        expect(alts[0]).toMatchObject({ part: p.alternative, part_label: p.alternative_label });
        expect(alts.length).toBeLessThanOrEqual(2);
        expect(new Set([p.part, ...alts.map((a) => a.part)]).size, `${id} ${p.name}`).toBe(alts.length + 1);
        if (alts.length < 2) continue;
        expect(alts[1]!.confidence).toBeGreaterThanOrEqual(0.05);
        expect(r.confirmation as string).toContain(`也可能是${alts[0]!.part_label}（`);
        expect(r.confirmation as string).toContain(`或${alts[1]!.part_label}`);
        twos.push(`${id} ${p.name}`);
      }
      // The sentence and ask_order list the pieces in doubt most layers likely wrong first: the first answers
      // help most. One question per outline: its first layer stands for the layers cut from it.
      const sentence = r.confirmation as string;
      const order = [...sentence.matchAll(/“([^”]+)”(?:（[^）]*）)?识别为/g)].map((m) => m[1]!);
      const sameOutline = (n: string) =>
        (pieces.find((q) => q.name === n) as { same_outline?: string[] }).same_outline ?? [];
      const covered = order.flatMap((n) => [n, ...sameOutline(n)]);
      expect(covered.sort()).toEqual(
        pieces
          .filter((p) => p.alternative)
          .map((p) => p.name)
          .sort(),
      );
      for (const n of order) {
        for (const copy of sameOutline(n)) {
          expect(order, `${id}: ${copy} is asked with ${n}`).not.toContain(copy);
          expect(sentence).toContain(`“${copy}”同一裁片`);
          grouped.push(`${id} ${n}+${copy}`);
        }
      }
      expect(r.ask_order).toEqual(order);
      const likelyWrong = order.map((n) => {
        const p = pieces.find((q) => q.name === n)! as Reported & { copies: number };
        return (1 - p.confidence) * p.copies;
      });
      expect(likelyWrong, id).toEqual([...likelyWrong].sort((a, b) => b - a));
      expect(new Set(likelyWrong).size, id).toBeGreaterThan(1);
    }
    expect(twos.length).toBeGreaterThan(0);
    expect(grouped.length, 'a mirrored pair in doubt is asked about once').toBeGreaterThan(0);
  });

  it('does not ask when the shapes are clear', async () => {
    const r = await identify(teagan());
    expect(r.needs_confirmation).toBe(false);
    expect(r.confirmation).toBeUndefined();
    expect(r.next as string).not.toMatch(/请其确认/);
    const marks = await overviewMarks(r);
    expect(marks.orange).toBe(0);
    expect(marks.caption).not.toMatch(/？|待确认/);
  });
});

describe('confirm_piece_parts', () => {
  it('keeps what the user confirmed, decides the other pieces around it, and remembers it', async () => {
    const session = newSession();
    const first = await identify(twinPanels(), session);
    const body = (first.pieces as Reported[]).filter((p) => p.part === 'front' || p.part === 'back');
    // One outline cut twice: the two layers are the same part, each with the other as its alternative.
    expect(body).toHaveLength(2);
    const [mine, twin] = body as [Reported, Reported];
    const other = mine.alternative!;
    expect(['front', 'back']).toContain(other);
    const documents = hashEditor(session.editor.snapshot);

    // The user says which one is the other part.
    const r = await ok(session, 'confirm_piece_parts', { pieces: [{ name: mine.name, part: other }] });
    const parts = new Map((r.pieces as Reported[]).map((p) => [p.name, p]));
    expect(parts.get(mine.name)).toMatchObject({ part: other, decided_by: 'user', confidence: 1 });
    expect(parts.get(mine.name)!.alternative).toBeUndefined();
    // Its twin keeps the part it had, no longer in doubt: one front and one back.
    expect(parts.get(twin.name)!.part).toBe(twin.part);
    expect(parts.get(twin.name)!.alternative).toBeUndefined();
    expect(r.changed).toEqual([expect.objectContaining({ name: mine.name, from: mine.part, to: other })]);
    expect(r.needs_confirmation).toBe(false);
    expect(hashEditor(session.editor.snapshot), 'the document is not touched').toBe(documents);
    expect(session.garment.analysis?.pieces.find((p) => p.name === mine.name)?.part).toBe(other);

    // identify_pieces again keeps the confirmation.
    const again = await ok(session, 'identify_pieces');
    const kept = new Map((again.pieces as Reported[]).map((p) => [p.name, p]));
    expect(kept.get(mine.name)).toMatchObject({ part: other, decided_by: 'user' });
    expect(kept.get(twin.name)!.part).toBe(twin.part);
    expect(again.changed).toBeUndefined();

    // A later confirmation adds to the kept ones (the user's word stands, even for both layers).
    const swapped = await ok(session, 'confirm_piece_parts', { pieces: [{ name: twin.name, part: other }] });
    const now = new Map((swapped.pieces as Reported[]).map((p) => [p.name, p]));
    expect(now.get(twin.name)).toMatchObject({ part: other, decided_by: 'user' });
    expect(now.get(mine.name)).toMatchObject({ part: other, decided_by: 'user' });

    // An empty list clears it: the model decides again.
    const cleared = await ok(session, 'confirm_piece_parts', { pieces: [] });
    expect((cleared.pieces as Reported[]).some((p) => p.decided_by === 'user')).toBe(false);
    expect(cleared.needs_confirmation).toBe(true);
  });

  it('keeps each document’s confirmations while another document is identified in between', async () => {
    const session = newSession();
    const first = await identify(twinPanels(), session);
    const [mine] = (first.pieces as Reported[]).filter((p) => p.part === 'front' || p.part === 'back');
    const other = mine!.alternative!;
    await ok(session, 'confirm_piece_parts', { pieces: [{ name: mine!.name, part: other }] });

    // Another marker, identified: its analysis replaces the first's; nothing of it is confirmed.
    const tee = await identify(teagan(), session);
    expect((tee.pieces as Reported[]).some((p) => p.decided_by === 'user')).toBe(false);

    // Back to the first: identify_pieces still has the user's answer.
    await ok(session, 'switch_document', { doc_name: 'twin-panels' });
    const back = await ok(session, 'identify_pieces');
    const parts = new Map((back.pieces as Reported[]).map((p) => [p.name, p]));
    expect(parts.get(mine!.name)).toMatchObject({ part: other, decided_by: 'user', confidence: 1 });
    expect(back.needs_confirmation).toBe(false);
    // Clearing them there leaves the other document's alone (it had none) and the first's empty.
    await ok(session, 'confirm_piece_parts', { pieces: [] });
    expect(session.garment.confirmations).toEqual([]);
  });

  it('still reads the confirmations a session of the earlier format kept with its analysis', async () => {
    const session = newSession();
    const first = await identify(twinPanels(), session);
    const [mine] = (first.pieces as Reported[]).filter((p) => p.part === 'front' || p.part === 'back');
    const other = mine!.alternative! as 'front' | 'back';
    const layerId = session.garment.analysis!.pieces.find((p) => p.name === mine!.name)!.layerId;
    // As a journal written before GarmentMemory.confirmations restores it.
    const { extraction, preview, applied } = session.garment;
    session.garment = {
      analysis: { ...session.garment.analysis!, confirmed: [{ layerId, part: other }] },
      extraction,
      preview,
      applied,
    };
    const again = await ok(session, 'identify_pieces');
    const parts = new Map((again.pieces as Reported[]).map((p) => [p.name, p]));
    expect(parts.get(mine!.name)).toMatchObject({ part: other, decided_by: 'user' });
    expect(session.garment.confirmations).toEqual([{ docId: expect.any(Number), layerId, part: other }]);
  });

  it('keeps a confirmed front half’s mirrored copy a front, even with the back confirmed as something else', async () => {
    const skirt = FIX.garments.find((g) => g.id === 'buttonskirt-S')!;
    const m = marker(skirt, 'none', 0.5, FIX.seamAllowanceMm);
    const session = newSession();
    await openMarker(session, m, skirt.id);
    await ok(session, 'identify_pieces');
    const [half, other] = m.layers.filter((l) => l.source.startsWith('buttonSkirt.front#'));
    const back = m.layers.find((l) => l.source.startsWith('buttonSkirt.back#'))!;
    const r = await ok(session, 'confirm_piece_parts', {
      pieces: [
        { name: back.name, part: 'other' },
        { name: half!.name, part: 'front' },
      ],
    });
    const parts = new Map((r.pieces as Reported[]).map((p) => [p.name, p.part]));
    expect(parts.get(half!.name)).toBe('front');
    expect(parts.get(other!.name)).toBe('front');
  });

  it('gives a confirmed sleeve its side and its mirrored copy the other', async () => {
    const session = newSession();
    const first = await identify(teagan(), session);
    const sleeves = (first.pieces as Reported[]).filter((p) => p.part.endsWith('_sleeve'));
    expect(sleeves).toHaveLength(2);
    const left = sleeves.find((p) => p.part === 'left_sleeve')!;
    const r = await ok(session, 'confirm_piece_parts', {
      pieces: [{ name: left.name, part: 'right_sleeve' }],
    });
    const parts = new Map((r.pieces as Reported[]).map((p) => [p.name, p]));
    expect(parts.get(left.name)).toMatchObject({ part: 'right_sleeve', decided_by: 'user' });
    const other = sleeves.find((p) => p.name !== left.name)!;
    expect(parts.get(other.name)!.part).toBe('left_sleeve');
  });

  it('refuses unknown layers, repeated layers and unknown parts, changing nothing', async () => {
    const session = newSession();
    const first = await identify(teagan(), session);
    const name = (first.pieces as Reported[])[0]!.name;
    const refused = async (args: unknown, code: string) => {
      const documents = hashEditor(session.editor.snapshot);
      const memory = session.garment;
      const r = await call(session, 'confirm_piece_parts', args);
      expect(r.ok).toBe(false);
      if (r.ok) throw new Error('unreachable');
      expect(r.error.code).toBe(code);
      expect(hashEditor(session.editor.snapshot)).toBe(documents);
      expect(session.garment, 'garment memory unchanged').toBe(memory);
      return r.error;
    };
    const unknown = await refused({ pieces: [{ name: `${name}x`, part: 'front' }] }, 'not_found');
    expect(unknown.hint).toContain(`“${name}”`);
    await refused(
      {
        pieces: [
          { name, part: 'front' },
          { name, part: 'back' },
        ],
      },
      'invalid_arguments',
    );
    const part = await refused({ pieces: [{ name, part: 'sleeve' }] }, 'invalid_arguments');
    expect(JSON.stringify(part)).toContain('left_sleeve');
    await refused({}, 'invalid_arguments');
  });
});
