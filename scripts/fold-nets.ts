/**
 * Fitted nets kept between runs, keyed by everything they are a function of: the samples, their
 * standardisation, the options and the fitting code (FIT_SOURCES). Leave one design out fits three nets for each
 * of 60 designs, seven minutes of a 2-core machine's time; the folds' samples change only when the features
 * or the fixtures do, and then their keys change and they are fitted again. Shared by the leave-one-design-out
 * test and by scripts/train-piece-model.ts, whose temperature fit trains the same folds.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LABELS, type Net } from '../src/garment/builtin/piece-model.js';
import { FIT_SOURCES, type FitOptions, fitNets, type NetFitter, type Sample } from './fit-net.js';

/** test/fixtures/freesewing/fold-nets.json: the nets of the current folds, and nothing else. */
export const FOLD_NETS = new URL('../test/fixtures/freesewing/fold-nets.json', import.meta.url);

const ABOUT =
  'Nets fitted by scripts/piece-training.ts for the leave-one-design-out folds, keyed by a digest of their inputs and code (scripts/fold-nets.ts). Derived data: refresh with ATELIER_SAVE_FOLDS=1 npx vitest run test/garment/piece-model.test.ts, or npx tsx scripts/train-piece-model.ts.';

/** A net's weights, which the fitter rounds to 1e-5, as integers: exact, and a third of the JSON. */
const SCALE = 1e5;

interface StoredNet {
  /** Rows × columns of the hidden and the output layer. */
  readonly shape: readonly [number, number, number, number];
  /** Both layers' weights × SCALE, row by row, as little-endian int32 in base64. */
  readonly weights: string;
}

function encode(net: Net): StoredNet {
  const rows = [...net.hidden, ...net.output];
  const ints = Int32Array.from(rows.flat(), (v) => Math.round(v * SCALE));
  return {
    shape: [net.hidden.length, net.hidden[0]!.length, net.output.length, net.output[0]!.length],
    weights: Buffer.from(ints.buffer).toString('base64'),
  };
}

function decode(stored: StoredNet): Net {
  const [hr, hc, or, oc] = stored.shape;
  const bytes = Buffer.from(stored.weights, 'base64');
  const ints = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const rows = (from: number, count: number, len: number) =>
    Array.from({ length: count }, (_, r) =>
      Array.from(ints.subarray(from + r * len, from + (r + 1) * len), (v) => v / SCALE),
    );
  return { hidden: rows(0, hr, hc), output: rows(hr * hc, or, oc) };
}

/** The key of one fit: a digest of every input, numbers by their exact bits. */
export function fitKey(
  samples: readonly Sample[],
  mean: readonly number[],
  std: readonly number[],
  opt: FitOptions,
): string {
  const h = createHash('sha256');
  // The sources' text, not the functions': test runners and tsx transform TypeScript differently.
  for (const source of FIT_SOURCES) h.update(readFileSync(source, 'utf8'));
  h.update(JSON.stringify({ opt, LABELS }));
  h.update(new Uint8Array(Float64Array.from([...mean, ...std]).buffer));
  for (const s of samples) h.update(new Uint8Array(Float64Array.from([...s.x, s.y, s.weight]).buffer));
  return h.digest('hex');
}

export interface FoldNets {
  /** Fits through the store: a known key answers its nets, an unknown one is fitted and remembered. */
  readonly fitter: NetFitter;
  /** How many fits were answered from the store and how many were fitted. */
  readonly counts: () => { readonly stored: number; readonly fitted: number };
  /** Writes the nets of every fit asked for in this run, and only those, over the store. */
  readonly save: () => void;
}

export function foldNets(file: URL = FOLD_NETS): FoldNets {
  const stored: Record<string, StoredNet[]> = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { fits: Record<string, StoredNet[]> }).fits
    : {};
  const used = new Map<string, StoredNet[]>();
  let hits = 0;
  let fitted = 0;
  const fitter: NetFitter = (samples, mean, std, opt) => {
    const key = fitKey(samples, mean, std, opt);
    const known = stored[key];
    if (known) {
      hits++;
      used.set(key, known);
      return known.map(decode);
    }
    fitted++;
    const nets = fitNets(samples, mean, std, opt);
    used.set(key, nets.map(encode));
    return nets;
  };
  return {
    fitter,
    counts: () => ({ stored: hits, fitted }),
    save: () => {
      // One fit per line: a refresh shows in a diff as the folds it changed.
      const lines = [...used]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, nets]) => `    ${JSON.stringify(key)}: ${JSON.stringify(nets)}`);
      writeFileSync(
        file,
        `{\n  "about": ${JSON.stringify(ABOUT)},\n  "fits": {\n${lines.join(',\n')}\n  }\n}\n`,
      );
    },
  };
}
