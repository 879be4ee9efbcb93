/**
 * The part classifier measured honestly: leave one design out over every garment of test/fixtures/freesewing
 * (FreeSewing's designs and the ones drafted by scripts/draft-garments.mjs, four sizes each), the model trained
 * inside each fold by the same code as scripts/train-piece-model.ts, and every held-out garment laid out three
 * ways (all pieces as drafted, all turned by one quarter turn — 90°, 180° or 270° in turn over a design's sizes —
 * and each copy turned at random; even copies mirrored), names
 * meaningless. Then the same garments with Chinese and English names, where the lexicon decides.
 *
 * `npx vitest run test/garment/piece-model.test.ts` prints the tables kept in the fixtures' README.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { foldNets } from '../../scripts/fold-nets.js';
import {
  type Described,
  describe as describeGarment,
  evaluationLayouts,
  FIT,
  fitNets,
  layOut,
  loadGarments,
  type NetFitter,
  TRAINING_LAYOUTS,
  TRAINING_PX_PER_MM,
  trainModel,
} from '../../scripts/piece-training.js';
import { LABELS, type Label, pieceProbabilities } from '../../src/garment/builtin/piece-model.js';
import { PIECE_MODEL } from '../../src/garment/builtin/piece-model-data.js';
import { classifyPieces, decideTypes, likelyWrongLayers } from '../../src/garment/builtin/pieces.js';

const { garments, seamAllowanceMm } = loadGarments();
const designs = [...new Set(garments.map((g) => g.design))];

/**
 * The accuracy leave-one-design-out reaches today (see the README's history): 85.4 % on 60 designs (85.1 % before
 * garment matching compared features, the 53 designs of before then 86.1 %, which gave 84.8 % before seven designs
 * joined them; 83.9 % before the garment's kind, 80.6 % without garment matching; the nets move a retrained figure
 * by about ±1 point with their starting seeds). The target is 90 %; this floor sits
 * under that spread, so a regression fails and a reseeding does not.
 */
const MIN_LOO = 0.82;

/** How many answers to doubts the tally follows: layers right after 0, 1, 2, 3 answers, then after all. */
const ANSWERS = 3;

/**
 * A designer answering the doubts of one held-out garment in the order identify_pieces asks them (most layers
 * likely wrong first): each answer fixes that piece to its true part and the garment is decided again (as
 * confirm_piece_parts does), until nothing is in doubt. Returns the layers right after 0…ANSWERS answers and
 * after all, and how many answers it took.
 */
function answerDoubts(
  d: Described,
  first: ReturnType<typeof decideTypes>,
  model: Parameters<typeof decideTypes>[2],
  probabilities: Parameters<typeof decideTypes>[3],
) {
  const copies = d.types.members.map((m) => m.length);
  const fixed: (Label | null)[] = d.types.members.map(() => null);
  const rightNow = (v: ReturnType<typeof decideTypes>) =>
    v.reduce((s, x, t) => s + (x.label === d.labels[t] ? copies[t]! : 0), 0);
  let verdicts = first;
  const right = [rightNow(verdicts)];
  let answers = 0;
  for (;;) {
    const open = verdicts.flatMap((v, t) => (v.doubt && fixed[t] === null ? [t] : []));
    if (!open.length) break;
    const likelyWrong = (u: number) => likelyWrongLayers(verdicts[u]!.confidence, copies[u]!);
    const t = open.reduce((a, b) => (likelyWrong(b) > likelyWrong(a) ? b : a));
    fixed[t] = d.labels[t]!;
    answers++;
    verdicts = decideTypes(d.types, fixed, model, probabilities);
    if (answers <= ANSWERS) right.push(rightNow(verdicts));
  }
  while (right.length <= ANSWERS) right.push(right[right.length - 1]!);
  right.push(rightNow(verdicts));
  return { right, answers };
}

interface Row {
  readonly design: string;
  readonly garment: string;
  readonly layout: string;
  readonly source: string;
  readonly truth: Label;
  readonly got: Label;
  readonly confidence: number;
  readonly doubted: boolean;
  /** The parts a doubt offers instead (its alternative, then the next likeliest part when there is one). */
  readonly offered: readonly Label[];
}

const layoutName = (d: Described) => ('turns' in d.layout ? `${d.layout.turns * 90}°` : 'mixed');
const isTraining = (d: Described) =>
  TRAINING_LAYOUTS.some((l) => JSON.stringify(l) === JSON.stringify(d.layout));

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function accuracy(rows: readonly Row[]): number {
  return rows.length ? rows.filter((r) => r.got === r.truth).length / rows.length : 0;
}

function table(rows: readonly Row[]): string {
  const out: string[] = [
    `leave-one-design-out, names meaningless, all layouts: ${pct(accuracy(rows))} (${rows.filter((r) => r.got === r.truth).length}/${rows.length} layers)`,
  ];
  out.push('\nper design:');
  for (const d of designs) {
    const sel = rows.filter((r) => r.design === d);
    const byLayout = ['0°', '90°', '180°', '270°', 'mixed'].map((l) => {
      const at = sel.filter((r) => r.layout === l);
      return at.length ? pct(accuracy(at)) : '—';
    });
    out.push(`  ${d.padEnd(12)} ${pct(accuracy(sel)).padStart(6)}   (${byLayout.join(' / ')})`);
  }
  out.push('\nper part (recall):');
  for (const l of LABELS) {
    const sel = rows.filter((r) => r.truth === l);
    if (sel.length) out.push(`  ${l.padEnd(10)} ${pct(accuracy(sel)).padStart(6)} of ${sel.length}`);
  }
  out.push('\nconfusion (truth \\ got):');
  out.push(`  ${''.padEnd(10)}${LABELS.map((l) => l.slice(0, 8).padStart(9)).join('')}`);
  for (const t of LABELS) {
    if (!rows.some((r) => r.truth === t)) continue;
    out.push(
      `  ${t.padEnd(10)}${LABELS.map((g) => String(rows.filter((r) => r.truth === t && r.got === g).length || '.').padStart(9)).join('')}`,
    );
  }
  const wrong = rows.filter((r) => r.got !== r.truth);
  const flagged = wrong.filter((r) => r.doubted).length;
  out.push(
    `\nneeds_confirmation: ${flagged}/${wrong.length} wrong layers are flagged as in doubt; ` +
      `${rows.filter((r) => r.doubted && r.got === r.truth).length}/${rows.filter((r) => r.got === r.truth).length} right layers are`,
  );
  const askedWrong = wrong.filter((r) => r.doubted);
  out.push(
    `the right part is offered for ${askedWrong.filter((r) => r.offered.includes(r.truth)).length}/${askedWrong.length} flagged wrong layers ` +
      `(as the first alternative for ${askedWrong.filter((r) => r.offered[0] === r.truth).length})`,
  );
  return out.join('\n');
}

const offeredBy = (doubt: ReturnType<typeof decideTypes>[number]['doubt']): Label[] =>
  doubt ? [doubt.label, ...(doubt.next ? [doubt.next.label] : [])] : [];

describe('part classifier, leave one design out', () => {
  const rows: Row[] = [];
  /** Per held-out garment laid out: layers right after 0…ANSWERS answers and after all, answers it took. */
  const asked: { right: number[]; answers: number }[] = [];
  /** Each held-out garment laid out: whether its kind (top or bottom) was read right, and its design. */
  const kinds: { design: string; right: boolean }[] = [];
  // The folds' nets come from the store when their inputs and the fitting code are what they were fitted from
  // (scripts/fold-nets.ts); the first fold is refitted below to show the store answers what the code fits.
  const folds = foldNets();
  let firstFit: { args: Parameters<NetFitter>; nets: ReturnType<NetFitter> } | undefined;
  const fitter: NetFitter = (...args) => {
    const nets = folds.fitter(...args);
    firstFit ??= { args, nets };
    return nets;
  };
  // Under a minute and a half alone on a 2-core machine with the stored nets, ten when every fold is fitted; beside the other
  // test files on a loaded machine, several times that: the limit is an hour.
  beforeAll(() => {
    const all = garments.flatMap((g) => {
      const sizeIndex = garments.filter((o) => o.design === g.design).indexOf(g);
      return evaluationLayouts(sizeIndex).map((l) =>
        describeGarment(g, l, TRAINING_PX_PER_MM, seamAllowanceMm),
      );
    });
    for (const design of designs) {
      // Trained on the other designs only, by the shipped model's code and settings.
      // The softmax temperature is the shipped model's (one scalar, fitted by the training script's own
      // leave-one-design-out); it sets confidences and doubts, the nets are the fold's.
      const model = trainModel(
        all.filter((d) => d.garment.design !== design && isTraining(d)),
        `all but ${design}`,
        FIT,
        PIECE_MODEL.temperature,
        fitter,
      );
      for (const d of all.filter((x) => x.garment.design === design)) {
        // Worked out once per garment laid out: what is fixed does not change them.
        const probabilities = pieceProbabilities(model, d.types.inputs, d.types.vectors);
        kinds.push({ design, right: probabilities.kind === d.garment.kind });
        const verdicts = decideTypes(
          d.types,
          d.types.members.map(() => null),
          model,
          probabilities,
        );
        asked.push(answerDoubts(d, verdicts, model, probabilities));
        d.types.members.forEach((members, t) => {
          for (const i of members) {
            rows.push({
              design,
              garment: d.garment.id,
              layout: layoutName(d),
              source: d.laid.sources[i]!,
              truth: d.labels[t]!,
              got: verdicts[t]!.label,
              confidence: verdicts[t]!.confidence,
              doubted: verdicts[t]!.doubt !== null,
              offered: offeredBy(verdicts[t]!.doubt),
            });
          }
        });
      }
    }
    const { stored, fitted } = folds.counts();
    console.log(
      `folds: ${stored} from the stored nets, ${fitted} fitted${fitted && !process.env.ATELIER_SAVE_FOLDS ? ' (stale store: ATELIER_SAVE_FOLDS=1 refreshes it)' : ''}`,
    );
    if (process.env.ATELIER_SAVE_FOLDS) folds.save();
    console.log(table(rows));
    const rightAfter = (k: number) => pct(asked.reduce((s, a) => s + a.right[k]!, 0) / rows.length);
    const answers = asked.map((a) => a.answers).sort((a, b) => a - b);
    console.log(
      `answering the doubts in the order asked, each answer deciding the garment again: ${rightAfter(0)} with no answer, ` +
        `${Array.from({ length: ANSWERS }, (_, k) => `${rightAfter(k + 1)} after ${k + 1}`).join(', ')}, ` +
        `${rightAfter(ANSWERS + 1)} after every doubt is answered (${(answers.reduce((a, b) => a + b, 0) / answers.length).toFixed(2)} answers per garment, ` +
        `median ${answers[answers.length >> 1]}, at most ${answers[answers.length - 1]}; none for ${answers.filter((a) => a === 0).length}/${answers.length})`,
    );
    const misread = [...new Set(kinds.filter((k) => !k.right).map((k) => k.design))];
    console.log(
      `garment kind (top or bottom) read from the best-matched garments: right for ${kinds.filter((k) => k.right).length}/${kinds.length} garments laid out; misread: ${misread.join(', ') || 'none'}`,
    );
  }, 3_600_000);

  it('stores the nets the training code fits', () => {
    expect(firstFit).toBeDefined();
    // As JSON, the form the model ships in (a fitted −0 is stored as 0).
    expect(JSON.stringify(fitNets(...firstFit!.args))).toBe(JSON.stringify(firstFit!.nets));
  }, 300_000);

  it(`reaches ${pct(MIN_LOO)} on designs it was not trained on, whichever way the pieces lie`, () => {
    expect(designs.length).toBeGreaterThanOrEqual(17);
    expect(accuracy(rows)).toBeGreaterThanOrEqual(MIN_LOO);
    // Turning the pieces does not change the answer much: as drafted, quarter-turned (one turn per garment, so
    // the same garments as the others) and turned at random, within 3 points of each other.
    const perLayout = [['0°'], ['90°', '180°', '270°'], ['mixed']].map((ls) =>
      accuracy(rows.filter((r) => ls.includes(r.layout))),
    );
    expect(Math.max(...perLayout) - Math.min(...perLayout)).toBeLessThan(0.03);
  });

  it('tells a top from a bottom by the garments it matches, sleeveless tops included', () => {
    // 681/720 when measured (misread: Tristan's corset, Wahid's waistcoat, Penelope's and Sarah's skirts, some culottes).
    expect(kinds.filter((k) => k.right).length / kinds.length).toBeGreaterThan(0.9);
    for (const design of ['Waistcoat', 'Gilet', 'TankTop', 'Walburga', 'Aaron'])
      expect(
        kinds.filter((k) => k.design === design && !k.right),
        design,
      ).toEqual([]);
  });

  it('sets a floor that answering the commonest part for everything cannot reach', () => {
    const best = Math.max(...LABELS.map((l) => rows.filter((r) => r.truth === l).length / rows.length));
    expect(best).toBeLessThan(MIN_LOO - 0.3);
  });

  it('asks for confirmation of most of the pieces it gets wrong, and of far fewer it gets right', () => {
    const share = (sel: Row[]) => sel.filter((r) => r.doubted).length / sel.length;
    const wrong = rows.filter((r) => r.got !== r.truth);
    expect(share(wrong)).toBeGreaterThan(0.75);
    expect(share(rows.filter((r) => r.got === r.truth))).toBeLessThan(0.4);
    // Wrong and not flagged: what a designer would not be asked about.
    expect(wrong.filter((r) => !r.doubted).length / rows.length).toBeLessThan(0.05);
    // Asked, the designer mostly finds the right part among the ones offered (839 of 1054 when measured; the
    // first alternative alone 678).
    const asked = wrong.filter((r) => r.doubted);
    expect(asked.filter((r) => r.offered.includes(r.truth)).length / asked.length).toBeGreaterThan(0.7);
  });

  it('gets most garments right once the designer answers a doubt or two, in the order it asks them', () => {
    const rightAfter = (k: number) => asked.reduce((s, a) => s + a.right[k]!, 0) / rows.length;
    // Measured: 85.4 % with no answer, 91.1 % after one, 95.2 % after two, 99.1 % after all (2.31 per garment).
    expect(rightAfter(1)).toBeGreaterThan(rightAfter(0) + 0.03);
    expect(rightAfter(2)).toBeGreaterThan(rightAfter(1));
    expect(rightAfter(ANSWERS + 1)).toBeGreaterThan(0.97);
  });

  it('is less sure of the pieces it gets wrong', () => {
    const mean = (sel: Row[]) => sel.reduce((s, r) => s + r.confidence, 0) / sel.length;
    expect(mean(rows.filter((r) => r.got !== r.truth))).toBeLessThan(
      mean(rows.filter((r) => r.got === r.truth)) - 0.1,
    );
  });
});

describe('part names decide when they are meaningful', () => {
  // Every garment classified twice: 13–93 s, on a 2-core machine shared with the rest of the suite.
  it('Chinese and English layer names: every layer of every garment right', { timeout: 300_000 }, () => {
    for (const g of garments) {
      const laid = layOut(g, { seed: 2 }, TRAINING_PX_PER_MM, seamAllowanceMm);
      for (const naming of ['zh', 'en'] as const) {
        const byName = g.pieces.flatMap((p) => Array.from({ length: p.cut }, () => p[naming]));
        const shapes = laid.shapes.map((s, i) => ({ ...s, name: byName[i]!, layerName: byName[i]! }));
        const parts = classifyPieces(shapes);
        parts.forEach((p, i) => {
          const got = p.part === 'left_sleeve' || p.part === 'right_sleeve' ? 'sleeve' : p.part;
          expect(got, `${g.id} ${naming} ${laid.sources[i]} “${shapes[i]!.name}”`).toBe(laid.truth[i]);
        });
      }
    }
  });
});
