/**
 * A PSD's merged-image channels as psd-tools (an independent reader) sees them: every channel's bytes, and the
 * image resources that name and describe the spot and alpha channels.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SYSTEM_PYTHON } from './psd-tools.js';

const run = promisify(execFile);
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'psd-channels-dump.py');

export interface PsdChannels {
  readonly channels: number;
  readonly width: number;
  readonly height: number;
  /** The header's colour mode: 3 RGB, 4 CMYK. */
  readonly mode: number;
  /** Resource 1045 (else 1006): one name per channel after the colour channels, the transparency included. */
  readonly names: string[];
  readonly identifiers: number[] | null;
  /** Resource 1077, hex. */
  readonly display: string | null;
  /** Every channel of the merged image, colour channels first. */
  readonly planes: Uint8Array[];
}

export async function psdChannels(file: Uint8Array): Promise<PsdChannels> {
  const dir = await mkdtemp(path.join(tmpdir(), 'psd-channels-'));
  try {
    const input = path.join(dir, 'in.psd');
    await writeFile(input, file);
    const { stdout } = await run(SYSTEM_PYTHON, ['-W', 'ignore', SCRIPT, input, dir], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const info = JSON.parse(stdout.trim().split('\n').at(-1)!) as Omit<PsdChannels, 'planes'>;
    const planes: Uint8Array[] = [];
    for (let i = 0; i < info.channels; i++)
      planes.push(new Uint8Array(await readFile(path.join(dir, `${i}.raw`))));
    return { ...info, planes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
