/**
 * identify_pieces end to end on real cut pieces: FreeSewing's drafts and our own (test/fixtures/freesewing)
 * laid out as markers, opened in a Session and identified as a user's model would call it. With Chinese or
 * English part names the lexicon decides and every layer must be right; with meaningless names ("图层 N") the
 * copies of a piece must be paired with each other and never with another piece, the sleeves split half left,
 * half right, and every answer carry a confidence, a reason and the needs_confirmation verdict. How well the
 * shape model generalises is measured leave one design out by piece-model.test.ts (this file runs the shipped
 * model, trained on these very garments, so its accuracy here is printed but not claimed).
 *
 * Run `npx vitest run test/garment/freesewing.test.ts` to print the table and the confusions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newSession, ok } from '../support/session.js';
import {
  type FsGarment,
  type Label,
  loadFixtures,
  marker,
  type Naming,
  openMarker,
} from './freesewing-fixtures.js';

const FIX = loadFixtures();
type Set = FsGarment['set'];
const SETS: readonly Set[] = ['freesewing', 'drafted'];
/**
 * Marker resolution, px/mm (12.7 DPI): identify_pieces measures shape on a proxy of ≤ 128 px a piece anyway,
 * and its overview image outlines pieces in O(pixels × outline width²), which is what bounds the time here.
 */
const PX_PER_MM = 0.5;
const NAMINGS: readonly Naming[] = ['none', 'zh', 'en'];
const MIN = { named: 1, paired: 0.9 } as const;

interface Row {
  readonly garment: string;
  readonly confidence: number;
  readonly reason: string;
  readonly set: Set;
  readonly naming: Naming;
  readonly layer: string;
  readonly source: string;
  readonly truth: Label;
  readonly got: Label;
  readonly part: string;
  readonly decidedBy: string;
}

interface GarmentRun {
  readonly rows: Row[];
  /** Layers of pieces cut ≥ 2 times that the tool paired with another copy of the same piece, of all such. */
  readonly pairsFound: number;
  readonly pairsTotal: number;
  /** Layers paired with a layer of another piece. */
  readonly falsePairs: number;
  /** Whether the sleeves found came out half left, half right. */
  readonly sidesBalanced: boolean | null;
  readonly needsConfirmation: unknown;
}

async function run(g: FsGarment, naming: Naming): Promise<GarmentRun> {
  const session = newSession();
  const m = marker(g, naming, PX_PER_MM, FIX.seamAllowanceMm);
  await openMarker(session, m, `${g.id}-${naming}`);
  const r = await ok(session, 'identify_pieces');
  const answers = r.pieces as {
    name: string;
    part: string;
    decided_by: string;
    pair_with?: string;
    confidence: number;
    reason: string;
  }[];
  const parts = new Map(answers.map((p) => [p.name, p]));
  // Copies a marker names alike are told apart as every tool names them: name#k, the k-th from the top (the
  // layers were stacked in list order, so the last is the top one).
  const callName = m.layers.map(({ name }, i) => {
    const same = m.layers.filter((l) => l.name === name).length;
    return same < 2 ? name : `${name}#${m.layers.slice(i).filter((l) => l.name === name).length}`;
  });
  const sourceOf = new Map(m.layers.map((l, i) => [callName[i]!, l.source.split('#')[0]]));
  const answerOf = (l: (typeof m.layers)[number]) => parts.get(callName[m.layers.indexOf(l)]!);
  const rows = m.layers.map((l, i): Row => {
    const p = parts.get(callName[i]!);
    if (!p) throw new Error(`no answer for ${callName[i]}`);
    const got = (p.part === 'left_sleeve' || p.part === 'right_sleeve' ? 'sleeve' : p.part) as Label;
    return {
      garment: g.id,
      confidence: p.confidence,
      reason: p.reason,
      set: g.set,
      naming,
      layer: l.name,
      source: l.source,
      truth: l.truth,
      got,
      part: p.part,
      decidedBy: p.decided_by,
    };
  });
  // Every layer of a piece cut two or more times should be paired with another copy of that piece.
  const cutMany = new Set(g.pieces.filter((p) => p.cut >= 2).map((p) => p.name));
  const copies = m.layers.filter((l) => cutMany.has(l.source.split('#')[0]!));
  const pairsFound = copies.filter((l) => {
    const partner = answerOf(l)?.pair_with;
    return partner !== undefined && sourceOf.get(partner) === l.source.split('#')[0];
  }).length;
  const pairsTotal = copies.length;
  // Pairs of different pieces (a front with a back): the print of one would be mirrored onto the other.
  const falsePairs = m.layers.filter((l) => {
    const partner = answerOf(l)?.pair_with;
    return partner !== undefined && sourceOf.get(partner) !== l.source.split('#')[0];
  }).length;
  const sleeves = rows.filter((x) => x.got === 'sleeve');
  const left = sleeves.filter((x) => x.part === 'left_sleeve').length;
  return {
    rows,
    pairsFound,
    pairsTotal,
    falsePairs,
    sidesBalanced: sleeves.length ? left * 2 === sleeves.length : null,
    needsConfirmation: r.needs_confirmation,
  };
}

function accuracy(rows: readonly Row[]): number {
  return rows.length ? rows.filter((r) => r.got === r.truth).length / rows.length : 0;
}

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function confusion(rows: readonly Row[]): string {
  const labels = [...new Set(rows.flatMap((r) => [r.truth, r.got]))].sort();
  const head = `${'truth \\ got'.padEnd(12)}${labels.map((l) => l.slice(0, 9).padStart(10)).join('')}`;
  const lines = labels
    .filter((t) => rows.some((r) => r.truth === t))
    .map(
      (t) =>
        `${t.padEnd(12)}${labels.map((l) => String(rows.filter((r) => r.truth === t && r.got === l).length || '.').padStart(10)).join('')}`,
    );
  return [head, ...lines].join('\n');
}

function report(runs: readonly GarmentRun[]): string {
  const rows = runs.flatMap((r) => r.rows);
  const out: string[] = [
    'identify_pieces on markers of FreeSewing and drafted garments (layers counted once per cut copy; ' +
      'names meaningless: the shipped model, trained on these garments)',
  ];
  for (const set of SETS) {
    const cells = NAMINGS.map((n) => {
      const sel = rows.filter((r) => r.set === set && r.naming === n);
      return `${n}: ${pct(accuracy(sel))} (${sel.filter((r) => r.got === r.truth).length}/${sel.length})`;
    });
    out.push(`${set.padEnd(8)} ${cells.join('   ')}`);
  }
  const pairRuns = runs.filter((r) => r.rows[0]!.naming === 'none');
  const found = pairRuns.reduce((s, r) => s + r.pairsFound, 0);
  const total = pairRuns.reduce((s, r) => s + r.pairsTotal, 0);
  const balanced = pairRuns.filter((r) => r.sidesBalanced !== null);
  const wrongPairs = pairRuns.reduce((s, r) => s + r.falsePairs, 0);
  out.push(
    `copies paired with a copy of the same piece (names meaningless): ${found}/${total} layers, ` +
      `with another piece: ${wrongPairs} layers; ` +
      'sleeves half left, half right: ' +
      `${balanced.filter((r) => r.sidesBalanced).length}/${balanced.length} garments`,
  );
  for (const set of SETS) {
    out.push(`\nconfusion, ${set}, names meaningless:`);
    out.push(confusion(rows.filter((r) => r.set === set && r.naming === 'none')));
  }
  out.push('\nwrong answers:');
  for (const r of rows.filter((x) => x.got !== x.truth)) {
    out.push(
      `  ${r.set.padEnd(8)} ${r.naming.padEnd(5)} ${r.garment.padEnd(28)} ${r.source.padEnd(30)} ` +
        `${r.layer.padEnd(24)} truth ${r.truth.padEnd(9)} got ${r.part} (${r.decidedBy})`,
    );
  }
  return out.join('\n');
}

/** One size per design (the first drafted), each named the three ways. */
const GARMENTS = [...new Map(FIX.garments.map((g) => [g.design, g])).values()];

describe('identify_pieces on FreeSewing and drafted cut pieces', () => {
  const runs: GarmentRun[] = [];
  beforeAll(async () => {
    for (const naming of NAMINGS) for (const g of GARMENTS) runs.push(await run(g, naming));
    console.log(report(runs));
  }, 240_000);

  const rows = () => runs.flatMap((r) => r.rows);

  it('Chinese and English names: the lexicon gets every layer right', () => {
    const named = rows().filter((r) => r.naming !== 'none');
    expect(named.length).toBeGreaterThan(300);
    for (const r of named) expect(r.got, `${r.garment} ${r.source} “${r.layer}”`).toBe(r.truth);
    expect(accuracy(named)).toBeGreaterThanOrEqual(MIN.named);
  });

  it('pairs the copies of a piece, gives half the sleeves to each side, and explains every answer', () => {
    const shape = runs.filter((r) => r.rows[0]!.naming === 'none');
    const found = shape.reduce((s, r) => s + r.pairsFound, 0);
    const total = shape.reduce((s, r) => s + r.pairsTotal, 0);
    expect(found / total).toBeGreaterThanOrEqual(MIN.paired);
    for (const r of shape) expect(r.falsePairs, `${r.rows[0]!.garment}: layers paired across pieces`).toBe(0);
    for (const r of shape)
      if (r.sidesBalanced !== null) expect(r.sidesBalanced, r.rows[0]!.garment).toBe(true);
    for (const r of shape) expect(typeof r.needsConfirmation, r.rows[0]!.garment).toBe('boolean');
    for (const row of shape.flatMap((r) => r.rows)) {
      expect(row.confidence).toBeGreaterThan(0);
      expect(row.confidence).toBeLessThanOrEqual(1);
      expect(row.reason).toMatch(/形状模型/);
    }
  });
});
