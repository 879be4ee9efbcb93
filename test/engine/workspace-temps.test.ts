/**
 * A save killed between writing its temp file and the rename leaves the temp behind: the process dying is
 * simulated by a rename that never happens. The file it leaves is of the scheme `removeOrphanTemps` removes.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { isAtomicTemp, Workspace } from '../../src/engine/workspace.js';
import { tempDir } from '../support/session.js';

vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return { ...fs, rename: () => new Promise<void>(() => {}) };
});

describe('a save killed before its rename', () => {
  it('leaves a temp file of the atomic-write scheme, which removeOrphanTemps removes', async () => {
    const root = tempDir();
    const ws = new Workspace(root);
    void ws.writeAtomic('out/poster.psd', Buffer.alloc(1024, 7));
    let left: string[] = [];
    for (let i = 0; i < 200 && left.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      left = readdirSync(root, { recursive: true })
        .map(String)
        .filter((p) => p.endsWith('.tmp'));
    }
    expect(left).toHaveLength(1);
    expect(isAtomicTemp(left[0]!)).toBe(true);
    // Too fresh to be called an orphan: a slow save in another process could still be writing it.
    expect(await ws.removeOrphanTemps()).toEqual([]);
    expect(await ws.removeOrphanTemps(0)).toEqual(left);
    expect(readdirSync(root, { recursive: true }).map(String)).toEqual(['out']);
  });
});
