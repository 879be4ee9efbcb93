/** `atelier doctor` through the real binary: real work end to end, one line per check, exit code by outcome. */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'doctor-test-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The doctor's scratch folders in the temp dir (it must remove its own). */
async function scratchFolders(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((n) => n.startsWith('atelier-doctor-'));
}

describe('atelier doctor', () => {
  it('passes every check on this machine, says what it did, and leaves nothing behind', async () => {
    const before = await scratchFolders();
    const ws = path.join(await tempDir(), 'ws');
    const r = await runCli(['doctor', '--workspace', ws], {
      env: { ATELIER_VISION_BASE_URL: '', ATELIER_VISION_MODEL: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    for (const name of ['node', 'workspace', 'compositor', 'text', 'psd', 'png', 'vision']) {
      expect(lines.find((l) => l.split(/\s+/)[1] === name)).toMatch(/^ok /);
    }
    expect(r.stdout).toContain('WebAssembly SIMD');
    expect(r.stdout).toContain('Chinese renders with Noto Sans SC');
    expect(r.stdout).toMatch(/reopened a PSD with its 3 layers/);
    expect(lines.at(-1)).toBe('atelier doctor: all checks passed');
    // The workspace was checked (and created), but the smoke test ran elsewhere and was removed.
    expect(existsSync(ws)).toBe(true);
    expect(await readdir(ws)).toEqual([]);
    expect(await scratchFolders()).toEqual(before);
  });

  it('fails with exit code 1 and says why when the workspace cannot be used', async () => {
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, 'not a folder');
    const r = await runCli(['doctor', '--workspace', path.join(file, 'ws')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL +workspace +ENOTDIR/m);
    expect(r.stdout).toMatch(/^ok +compositor/m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('atelier doctor: 1 check(s) failed');
  });

  it('a half-configured vision model is a warning, not a failure', async () => {
    const r = await runCli(['doctor', '--workspace', path.join(await tempDir(), 'ws')], {
      env: { ATELIER_VISION_BASE_URL: 'http://127.0.0.1:9/v1', ATELIER_VISION_MODEL: '' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warn +vision +set both ATELIER_VISION_BASE_URL and ATELIER_VISION_MODEL/m);
  });

  it('rejects unknown options with a usage error (exit 2)', async () => {
    const r = await runCli(['doctor', '--fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: atelier doctor');
  });
});
