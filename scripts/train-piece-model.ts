/**
 * Trains the part classifier on every garment of test/fixtures/freesewing (FreeSewing's designs and ours) and
 * writes it to src/garment/builtin/piece-model-data.ts, the data identify_pieces ships with:
 *
 *   npx tsx scripts/train-piece-model.ts
 *
 * Deterministic. Its honest accuracy is not measured here (a model scores well on what it was fitted to):
 * test/garment/piece-model.test.ts trains the same way inside each leave-one-design-out fold. The temperature is
 * fitted on those same folds, whose nets it keeps in test/fixtures/freesewing/fold-nets.json for the test
 * (scripts/fold-nets.ts). The data file is written as one line: `npx biome format --write` it after.
 */
import { writeFileSync } from 'node:fs';
import { foldNets } from './fold-nets.js';
import {
  describe,
  FIT,
  fitTemperature,
  loadGarments,
  TRAINING_LAYOUTS,
  TRAINING_PX_PER_MM,
  trainModel,
} from './piece-training.js';

const { garments, seamAllowanceMm } = loadGarments();
const described = garments.flatMap((g) =>
  TRAINING_LAYOUTS.map((l) => describe(g, l, TRAINING_PX_PER_MM, seamAllowanceMm)),
);
const designs = [...new Set(garments.map((g) => g.design))];
// The temperature's folds are the leave-one-design-out test's: fitted once, kept for both.
const folds = foldNets();
const temperature = fitTemperature(described, FIT, folds.fitter);
folds.save();
const model = trainModel(
  described,
  `${designs.length} designs (${designs.join(', ')}), ${garments.length} garments`,
  FIT,
  temperature,
);
const out = new URL('../src/garment/builtin/piece-model-data.ts', import.meta.url);
writeFileSync(
  out,
  `/** Written by scripts/train-piece-model.ts (do not edit): the part classifier's weights. */\n` +
    `import type { PieceModel } from './piece-model.js';\n\n` +
    `export const PIECE_MODEL: PieceModel = ${JSON.stringify(model)};\n`,
);
console.log(
  `trained on ${model.trainedOn}: ${described.length} laid-out garments, temperature ${temperature} → ${out.pathname}`,
);
