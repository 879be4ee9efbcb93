/**
 * The workspace: paths that cannot name a file are refused, messages never reveal the server's folders, and
 * the temp files of atomic writes are recognised and, once orphaned, removed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditorError } from '../../src/engine/errors.js';
import { isAtomicTemp, pathProblem, Workspace } from '../../src/engine/workspace.js';
import { call, newSession, ok, tempDir } from '../support/session.js';

function thrown(run: () => unknown): EditorError {
  try {
    run();
  } catch (err) {
    if (err instanceof EditorError) return err;
    throw err;
  }
  throw new Error('expected an EditorError');
}

async function rejected(run: () => Promise<unknown>): Promise<EditorError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof EditorError) return err;
    throw err;
  }
  throw new Error('expected an EditorError');
}

describe('paths that cannot name a file', () => {
  it.each([
    ' ',
    '\t',
    '.',
    '..',
    './',
    'a/.',
    'a/..',
    '...',
    'a/.../b.png',
    'out.png ',
    ' out.png',
    'a /b.png',
    'a/ /b',
    'out/',
    'a\\',
  ])('%j is refused as invalid_arguments', (rel) => {
    expect(pathProblem(rel)).not.toBeNull();
    const err = thrown(() => new Workspace(tempDir()).resolve(rel));
    expect(err.code).toBe('invalid_arguments');
    expect(err.hint).toContain('工作区');
  });

  it.each(['a.png', './a.png', 'out/图 1.png', 'a/../b.psd', '.hidden.png', 'v1.2/x.jpg', 'a..b.png'])(
    '%j is a file path',
    (rel) => {
      expect(pathProblem(rel)).toBeNull();
      expect(() => new Workspace(tempDir()).resolve(rel)).not.toThrow();
    },
  );
});

describe('a backslash between folders', () => {
  it('separates them, as a slash does, and cannot leave the workspace', () => {
    const root = tempDir();
    const ws = new Workspace(root);
    expect(ws.resolve('out\\a.png')).toBe(path.join(ws.resolve('out'), 'a.png'));
    expect(ws.relative(ws.resolve('out\\sub\\a.png'))).toBe('out/sub/a.png');
    expect(ws.resolve('a\\..\\b.png')).toBe(ws.resolve('b.png'));
    for (const rel of ['..\\x.png', 'a\\..\\..\\x.png']) {
      expect(thrown(() => ws.resolve(rel)).code).toBe('invalid_arguments');
    }
  });
});

describe('no absolute server path in any message', () => {
  function expectNoServerPath(err: { message: string; hint?: string; details?: unknown }, root: string) {
    const text = JSON.stringify(err);
    expect(text).not.toContain(root);
    expect(text).not.toContain(path.dirname(root));
    expect(text).not.toMatch(/\/tmp\//);
  }

  it('write and read failures name the workspace-relative path only', async () => {
    const root = tempDir();
    const ws = new Workspace(root);
    writeFileSync(path.join(root, 'a.png'), 'x');
    mkdirSync(path.join(root, 'dir', 'inner'), { recursive: true });
    const failures = [
      await rejected(() => ws.writeAtomic('a.png/b.png', Buffer.from('x'))), // ENOTDIR on mkdir
      await rejected(() => ws.writeAtomic('dir', Buffer.from('x'))), // a folder in the way
      await rejected(() => ws.writeAtomic(`${'长'.repeat(200)}.png`, Buffer.from('x'))), // ENAMETOOLONG
      await rejected(() => ws.read('dir')), // EISDIR
      await rejected(() => ws.read(`${'长'.repeat(200)}.png`)),
    ];
    for (const err of failures) {
      expect(err.code === 'io_error' || err.code === 'not_found', err.message).toBe(true);
      expectNoServerPath(err, root);
    }
    expect(failures[0]!.message).toContain('a.png');
    expect(failures[1]!.message).toContain('目录');
  });

  it('through Session.call: save_document_as onto a file used as a folder', async () => {
    const root = tempDir();
    const s = newSession(root);
    writeFileSync(path.join(root, 'taken'), 'x');
    await ok(s, 'create_document', { width: 8, height: 8 });
    for (const target of ['taken/out.png', `${'名'.repeat(120)}.psd`]) {
      const r = await call(s, 'save_document_as', { path: target });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('io_error');
      expectNoServerPath(r.error, root);
    }
  });
});

describe('orphan temp files', () => {
  const TEMP = '.poster.psd.4242.0123456789ab.tmp';

  it('recognises the atomic-write scheme and nothing else', () => {
    expect(isAtomicTemp(TEMP)).toBe(true);
    expect(isAtomicTemp(`sessions/abc/${TEMP}`)).toBe(true);
    for (const name of [
      'poster.tmp',
      '.notes.tmp',
      'poster.psd',
      '.a.psd.12.0123456789AB.tmp',
      '.a.12.xyz.tmp',
    ]) {
      expect(isAtomicTemp(name), name).toBe(false);
    }
  });

  it('removes old temps anywhere in the workspace, keeps fresh ones and everything else', async () => {
    const root = tempDir();
    const ws = new Workspace(root);
    mkdirSync(path.join(root, 'sessions', 's1', 'out'), { recursive: true });
    const old = Date.now() / 1000 - 3600;
    const orphans = [TEMP, `sessions/s1/out/.图1.png.77.abcdefabcdef.tmp`];
    for (const rel of orphans) {
      writeFileSync(path.join(root, rel), 'partial');
      utimesSync(path.join(root, rel), old, old);
    }
    // Written by a live process (this one): fresh, so perhaps a save still running.
    const fresh = `sessions/s1/.live.psd.${process.pid}.ffffffffffff.tmp`;
    writeFileSync(path.join(root, fresh), 'still being written');
    const kept = ['poster.psd', 'sessions/s1/.notes.tmp'];
    for (const rel of kept) {
      writeFileSync(path.join(root, rel), 'user file');
      utimesSync(path.join(root, rel), old, old);
    }
    expect(await ws.removeOrphanTemps()).toEqual([...orphans].sort());
    const left = readdirSync(root, { recursive: true })
      .map(String)
      .filter((p) => p.includes('.'))
      .sort();
    expect(left).toEqual([...kept, fresh].sort());
    // At start-up with nothing else writing, everything of the scheme may go at once.
    expect(await ws.removeOrphanTemps(0)).toEqual([fresh]);
  });

  it('removes a fresh temp whose writer is dead (a service restarted at once after a kill mid-save)', async () => {
    const root = tempDir();
    const ws = new Workspace(root);
    mkdirSync(path.join(root, 'out'));
    const child = spawn(process.execPath, ['-e', '']);
    const deadPid = child.pid!;
    await once(child, 'exit');
    const dead = `out/.poster.psd.${deadPid}.0123456789ab.tmp`;
    const live = `out/.poster.psd.${process.pid}.abcdefabcdef.tmp`;
    // Pid 1 is alive (as another user's process, it answers EPERM: alive too), its save perhaps running.
    const otherUser = '.b.png.1.0123456789ab.tmp';
    for (const rel of [dead, live, otherUser]) writeFileSync(path.join(root, rel), 'partial');
    expect(await ws.removeOrphanTemps()).toEqual([dead]);
    expect(readdirSync(root, { recursive: true }).map(String).sort()).toEqual(
      ['out', live, otherUser].sort(),
    );
  });
});

describe('the disk quota', () => {
  it('refuses a write past it, written whole or streamed, leaving nothing behind; replacing a file gives its room back', async () => {
    const root = tempDir();
    const ws = new Workspace(root, { quotaBytes: 1000 });
    await ws.writeAtomic('a.bin', Buffer.alloc(600, 1));
    const whole = await rejected(() => ws.writeAtomic('b.bin', Buffer.alloc(600, 2)));
    expect(whole.code).toBe('out_of_bounds');
    expect(whole.message).toMatch(/本会话的文件空间不足.*“b\.bin”/);
    expect(whole.details).toEqual({ needed_bytes: 600, used_bytes: 600, quota_bytes: 1000 });
    // Streamed (a PSD written channel by channel): its size is known only once written.
    const streamed = await rejected(() =>
      ws.writeAtomicWith('out/deep/c.bin', async (handle) => {
        await handle.write(Buffer.alloc(300, 3));
        await handle.write(Buffer.alloc(300, 3));
      }),
    );
    expect(streamed.code).toBe('out_of_bounds');
    expect(streamed.message).toContain('out/deep/c.bin');
    // No file, no temp file, not even the folders made for it.
    expect(readdirSync(root, { recursive: true })).toEqual(['a.bin']);
    expect(await ws.usedBytes()).toBe(600);

    await ws.writeAtomic('a.bin', Buffer.alloc(950, 4));
    expect(readFileSync(path.join(root, 'a.bin'))).toEqual(Buffer.alloc(950, 4));
    expect(await ws.room()).toBe(50);
  });
});

describe('a private workspace', () => {
  const modeOf = (p: string) => statSync(p).mode & 0o777;

  it('makes its folders 0700 and its files 0600, whatever the umask', async () => {
    const root = path.join(tempDir(), 'sessions', 'abc');
    const ws = new Workspace(root, { private: true });
    await ws.writeAtomic('out/deep/a.png', Buffer.from('x'));
    await ws.writeAtomicWith('b.psd', (handle) => handle.writeFile('y'));
    for (const dir of [path.dirname(root), root, path.join(root, 'out'), path.join(root, 'out', 'deep')]) {
      expect(modeOf(dir), dir).toBe(0o700);
    }
    for (const file of ['out/deep/a.png', 'b.psd']) expect(modeOf(path.join(root, file)), file).toBe(0o600);
  });
});
