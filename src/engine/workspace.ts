/**
 * The session's workspace folder (DESIGN.md §4): every path a tool takes is relative to it, nothing may
 * resolve outside it (`..`, absolute paths, symlinks), and files are written atomically (temp file + rename).
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { EditorError } from './errors.js';

function errnoOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True when `child` is `parent` itself or lies inside it (both absolute and normalised). */
function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class Workspace {
  /** Absolute path of the workspace folder, as given (normalised). */
  readonly root: string;
  /** The folder with every symlink resolved; containment is checked against it. */
  readonly realRoot: string;

  /** Opens the workspace at `root` (resolved against the current directory), creating the folder if missing. */
  constructor(root: string) {
    this.root = path.resolve(root);
    try {
      mkdirSync(this.root, { recursive: true });
      this.realRoot = realpathSync(this.root);
    } catch (err) {
      throw new EditorError('io_error', `无法创建或打开工作区目录“${this.root}”：${reasonOf(err)}`);
    }
  }

  /**
   * The absolute path of `relPath` inside the workspace. Rejects (`invalid_arguments`) empty paths, NUL bytes,
   * absolute paths, `..` escapes, and paths whose deepest existing part is a symlink leading outside.
   */
  resolve(relPath: string): string {
    if (typeof relPath !== 'string' || relPath.trim() === '') {
      throw new EditorError('invalid_arguments', '路径不能为空', {
        hint: '请提供相对于工作区的文件路径，例如 “out/图1.png”',
      });
    }
    if (relPath.includes('\0')) {
      throw new EditorError('invalid_arguments', `路径“${relPath.replace(/\0/g, '\\0')}”包含非法的空字符`);
    }
    if (path.isAbsolute(relPath) || path.win32.isAbsolute(relPath)) {
      throw new EditorError('invalid_arguments', `不允许使用绝对路径“${relPath}”，路径必须相对于工作区`, {
        hint: '请改用相对于工作区的路径',
      });
    }
    const abs = path.resolve(this.root, relPath);
    if (!isInside(this.root, abs)) {
      throw new EditorError('invalid_arguments', `路径“${relPath}”指向工作区之外`, {
        hint: '路径中不能用 “..” 跳出工作区',
      });
    }
    // Resolve symlinks on the deepest part of the path that exists, then check containment again.
    let probe = abs;
    for (;;) {
      let exists = true;
      try {
        lstatSync(probe);
      } catch (err) {
        const code = errnoOf(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          throw new EditorError('io_error', `无法检查路径“${relPath}”：${reasonOf(err)}`);
        }
        exists = false;
      }
      if (exists) {
        let real: string;
        try {
          real = realpathSync(probe);
        } catch (err) {
          // A dangling symlink: where it points cannot be checked, and writing through it could escape.
          throw new EditorError('invalid_arguments', `路径“${relPath}”经过一个无效的符号链接`, {
            details: { reason: reasonOf(err) },
          });
        }
        if (!isInside(this.realRoot, real)) {
          throw new EditorError('invalid_arguments', `路径“${relPath}”通过符号链接指向工作区之外`);
        }
        break;
      }
      const parent = path.dirname(probe);
      if (parent === probe || !isInside(this.root, parent)) break;
      probe = parent;
    }
    return abs;
  }

  /** `abs` relative to the workspace (forward slashes); `invalid_arguments` when it lies outside. */
  relative(abs: string): string {
    const full = path.resolve(abs);
    let base = this.root;
    if (!isInside(base, full) && isInside(this.realRoot, full)) base = this.realRoot;
    if (!isInside(base, full)) {
      throw new EditorError('invalid_arguments', `路径“${abs}”不在工作区内`);
    }
    return path.relative(base, full).split(path.sep).join('/');
  }

  async exists(relPath: string): Promise<boolean> {
    const abs = this.resolve(relPath);
    try {
      await stat(abs);
      return true;
    } catch {
      return false;
    }
  }

  /** The whole file; `not_found` when it does not exist, `io_error` for any other failure. */
  async read(relPath: string): Promise<Buffer> {
    const abs = this.resolve(relPath);
    try {
      return await readFile(abs);
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new EditorError('not_found', `文件“${relPath}”不存在`, {
          hint: '请检查路径是否正确（相对于工作区）',
        });
      }
      if (code === 'EISDIR') {
        throw new EditorError('io_error', `“${relPath}”是一个目录，不是文件`);
      }
      throw new EditorError('io_error', `读取文件“${relPath}”失败：${reasonOf(err)}`);
    }
  }

  /**
   * Writes `data` to `relPath` atomically: parent folders are created inside the workspace, the bytes go to a
   * temp file in the same folder, which is flushed and then renamed over the target. On failure the temp file is
   * removed and the target is left as it was.
   */
  async writeAtomic(relPath: string, data: Buffer | Uint8Array): Promise<void> {
    const abs = this.resolve(relPath);
    if (abs === this.root) {
      throw new EditorError('invalid_arguments', `路径“${relPath}”是工作区目录本身，不能作为文件写入`);
    }
    const dir = path.dirname(abs);
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new EditorError('io_error', `无法创建目录“${this.relative(dir)}”：${reasonOf(err)}`);
    }
    // The folders just created may not be what resolve() saw; check the final location once more.
    this.resolve(relPath);
    const tmp = path.join(dir, `.${path.basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    let created = false;
    let renaming = false;
    try {
      const handle = await open(tmp, 'wx');
      created = true;
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      renaming = true;
      await rename(tmp, abs);
      created = false;
    } catch (err) {
      if (created) await unlink(tmp).catch(() => undefined);
      const code = errnoOf(err);
      const isDir = renaming && (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST');
      const why = isDir ? '目标是一个目录' : reasonOf(err);
      throw new EditorError('io_error', `写入文件“${relPath}”失败：${why}`);
    }
  }
}
