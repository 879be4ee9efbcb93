/**
 * GIMP (Debian's `gimp`, 2.10) as a second independent PSD reader: its own PSD loader and compositor, nothing
 * shared with ag-psd or psd-tools. `flattenWithGimp` opens PSD files in one headless batch run
 * (gimp-console, Script-Fu), merges the visible layers and exports each result as PNG.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const GIMP_CONSOLE = '/usr/bin/gimp-console-2.10';
export const gimpAvailable = existsSync(GIMP_CONSOLE);

/** Script-Fu string literal. */
const lit = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * Opens each `[psd, png]` pair's PSD with GIMP's PSD loader, merges its visible layers (hidden ones left out,
 * transparency kept, clipped to the canvas) and saves the result to `png`.
 */
export async function flattenWithGimp(pairs: readonly (readonly [string, string])[]): Promise<void> {
  const steps = pairs
    .map(
      ([psd, png]) =>
        `(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE ${lit(psd)} ${lit(psd)})))` +
        ' (layer (car (gimp-image-merge-visible-layers image CLIP-TO-IMAGE))))' +
        ` (file-png-save2 RUN-NONINTERACTIVE image layer ${lit(png)} ${lit(png)} 0 9 0 0 0 0 0 0 0)` +
        ' (gimp-image-delete image))',
    )
    .join(' ');
  // Its own profile folder: GIMP writes its settings there on first start, never in the user's home.
  const home = path.join(tmpdir(), 'atelier-gimp-home');
  await mkdir(home, { recursive: true });
  await run(
    GIMP_CONSOLE,
    [
      '-i', // no interface
      '-d', // no brushes, patterns … loaded
      '-f', // no fonts
      '-n', // a new instance
      '--batch-interpreter',
      'plug-in-script-fu-eval',
      '-b',
      `(begin ${steps})`,
      '-b',
      '(gimp-quit 0)',
    ],
    { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }, timeout: 180_000 },
  );
  const missing = pairs.filter(([, png]) => !existsSync(png)).map(([psd]) => psd);
  if (missing.length > 0) throw new Error(`GIMP did not flatten ${missing.join(', ')}`);
}
