/**
 * PSDs of text layers for the text tests: written by ag-psd as records without pixels (so Atelier draws them) over
 * a white background, and the text records read back from what a session saved.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Layer as AgLayer, readPsd, writePsdBuffer } from 'ag-psd';
import type { Session } from '../../src/calls/session.js';
import { setUpCmykSupport } from '../../src/engine/io/psd-cmyk.js';
import { SYSTEM_PYTHON } from './psd-tools.js';

export type AgText = NonNullable<AgLayer['text']>;

/** Writes `rel`, a `w` × `h` PSD: a white background under `layers` (text records only). */
export async function putTextPsd(
  s: Session,
  rel: string,
  [w, h]: readonly [number, number],
  layers: readonly { name: string; text: AgText }[],
): Promise<void> {
  const white = () => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(255) });
  const bytes = writePsdBuffer({
    width: w,
    height: h,
    imageData: white(),
    children: [{ name: 'Background', left: 0, top: 0, right: w, bottom: h, imageData: white() }, ...layers],
  });
  await s.workspace.writeAtomic(rel, Buffer.from(bytes));
}

/** The text record of layer `name` in the session's file `rel`, as ag-psd reads it (CMYK files too). */
export async function agTextOf(s: Session, rel: string, name: string): Promise<AgText> {
  const buf = await readFile(path.join(s.workspace.root, rel));
  // Raw channels: only the text records are wanted (ag-psd reads CMYK files once told it may).
  setUpCmykSupport();
  const psd = readPsd(buf, { useRawData: true, skipThumbnail: true });
  const found = (psd.children ?? []).find((l) => l.name === name);
  if (!found?.text) throw new Error(`no text layer ${name} in ${rel}`);
  return found.text;
}

/**
 * What psd-tools (an independent reader) reads of each type layer of `file`, by layer name: `body`, Python lines
 * over the layer `l` and its engine data `e` that set `v`, the value reported for it.
 */
export async function psdToolsTypeLayers<T>(
  file: string,
  body: readonly string[],
): Promise<Record<string, T>> {
  const script = [
    'import json, sys',
    'from psd_tools import PSDImage',
    'out = {}',
    'for l in PSDImage.open(sys.argv[1]).descendants():',
    "    if l.kind != 'type':",
    '        continue',
    '    e = l.engine_dict',
    ...body.map((line) => `    ${line}`),
    '    out[l.name] = v',
    'print(json.dumps(out))',
  ].join('\n');
  const { stdout } = await promisify(execFile)(SYSTEM_PYTHON, ['-c', script, file]);
  return JSON.parse(stdout) as Record<string, T>;
}
