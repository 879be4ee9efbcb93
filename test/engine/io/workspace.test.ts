import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditorError } from '../../../src/engine/errors.js';
import { Workspace } from '../../../src/engine/workspace.js';

let base: string;
let ws: Workspace;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'atelier-ws-'));
  ws = new Workspace(path.join(base, 'ws'));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EditorError);
    return (err as EditorError).code;
  }
  return undefined;
}

async function asyncCodeOf(p: Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EditorError);
    return { code: (err as EditorError).code, message: (err as EditorError).message };
  }
  return undefined;
}

describe('Workspace', () => {
  it('creates the folder and resolves relative paths inside it', async () => {
    expect((await readdir(base)).includes('ws')).toBe(true);
    expect(ws.resolve('a/b.png')).toBe(path.join(ws.root, 'a', 'b.png'));
    expect(ws.resolve('a/../b.png')).toBe(path.join(ws.root, 'b.png'));
    expect(ws.resolve('./图片/衣服.psd')).toBe(path.join(ws.root, '图片', '衣服.psd'));
    // Names that begin with two dots are files inside, not a step out.
    expect(ws.resolve('..foo.png')).toBe(path.join(ws.root, '..foo.png'));
    expect(ws.resolve('...png')).toBe(path.join(ws.root, '...png'));
    expect(ws.resolve('.._x.psd')).toBe(path.join(ws.root, '.._x.psd'));
    expect(ws.relative(path.join(ws.root, 'x', 'y.png'))).toBe('x/y.png');
  });

  it('rejects escapes, absolute paths, NUL bytes and empty paths with a Chinese message naming the path', () => {
    for (const bad of ['../x.png', 'a/../../x.png', '..', '/etc/passwd', 'a\0b.png', '', '   ']) {
      expect(codeOf(() => ws.resolve(bad))).toBe('invalid_arguments');
    }
    try {
      ws.resolve('../外面.png');
    } catch (err) {
      expect((err as Error).message).toContain('../外面.png');
      expect((err as Error).message).toMatch(/工作区/);
    }
    expect(codeOf(() => ws.relative(path.join(base, 'elsewhere.png')))).toBe('invalid_arguments');
  });

  it('rejects paths through a symlink that leads outside, and dangling symlinks', async () => {
    const outside = path.join(base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await symlink(outside, path.join(ws.root, 'link'));
    await symlink(path.join(outside, 'secret.txt'), path.join(ws.root, 'file-link.txt'));
    await symlink(path.join(outside, 'missing.txt'), path.join(ws.root, 'dangling.txt'));
    expect(codeOf(() => ws.resolve('link/secret.txt'))).toBe('invalid_arguments');
    expect(codeOf(() => ws.resolve('link/new/deeper.png'))).toBe('invalid_arguments');
    expect(codeOf(() => ws.resolve('file-link.txt'))).toBe('invalid_arguments');
    expect(codeOf(() => ws.resolve('dangling.txt'))).toBe('invalid_arguments');
    expect((await asyncCodeOf(ws.read('link/secret.txt')))?.code).toBe('invalid_arguments');
    expect((await asyncCodeOf(ws.writeAtomic('dangling.txt', Buffer.from('x'))))?.code).toBe(
      'invalid_arguments',
    );
    // Nothing was written outside.
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('allows symlinks that stay inside the workspace', async () => {
    await mkdir(path.join(ws.root, 'real'));
    await symlink(path.join(ws.root, 'real'), path.join(ws.root, 'alias'));
    await ws.writeAtomic('alias/a.txt', Buffer.from('hello'));
    expect(await readFile(path.join(ws.root, 'real', 'a.txt'), 'utf8')).toBe('hello');
  });

  it('works when the workspace itself is reached through a symlink', async () => {
    const linked = path.join(base, 'linked-ws');
    await symlink(ws.root, linked);
    const ws2 = new Workspace(linked);
    await ws2.writeAtomic('x.txt', Buffer.from('1'));
    expect(await ws.read('x.txt')).toEqual(Buffer.from('1'));
    expect(ws2.relative(path.join(ws.root, 'x.txt'))).toBe('x.txt');
  });

  it('writes atomically, creating nested folders, and leaves no temp file', async () => {
    await ws.writeAtomic('深/层/目录/out.bin', new Uint8Array([1, 2, 3]));
    expect(await ws.read('深/层/目录/out.bin')).toEqual(Buffer.from([1, 2, 3]));
    expect(await readdir(path.join(ws.root, '深', '层', '目录'))).toEqual(['out.bin']);
    await ws.writeAtomic('深/层/目录/out.bin', Buffer.from('replaced'));
    expect(await readFile(path.join(ws.root, '深', '层', '目录', 'out.bin'), 'utf8')).toBe('replaced');
    expect(await readdir(path.join(ws.root, '深', '层', '目录'))).toEqual(['out.bin']);
    expect(await ws.exists('深/层/目录/out.bin')).toBe(true);
    expect(await ws.exists('深/没有.bin')).toBe(false);
  });

  it('fails with io_error and leaves no partial or temp file when the target is a directory', async () => {
    await mkdir(path.join(ws.root, 'target.png', 'inner'), { recursive: true });
    const err = await asyncCodeOf(ws.writeAtomic('target.png', Buffer.from('data')));
    expect(err?.code).toBe('io_error');
    expect(err?.message).toContain('target.png');
    expect((await readdir(ws.root)).sort()).toEqual(['target.png']);
    expect(await readdir(path.join(ws.root, 'target.png'))).toEqual(['inner']);
  });

  it('fails with io_error when a parent path is a file', async () => {
    await writeFile(path.join(ws.root, 'plain'), 'x');
    expect((await asyncCodeOf(ws.writeAtomic('plain/child.txt', Buffer.from('y'))))?.code).toBe('io_error');
    expect(await readdir(ws.root)).toEqual(['plain']);
  });

  it('reads: missing file → not_found, directory → io_error', async () => {
    const missing = await asyncCodeOf(ws.read('nope/没有.psd'));
    expect(missing?.code).toBe('not_found');
    expect(missing?.message).toContain('nope/没有.psd');
    await mkdir(path.join(ws.root, 'dir'));
    expect((await asyncCodeOf(ws.read('dir')))?.code).toBe('io_error');
  });
});
