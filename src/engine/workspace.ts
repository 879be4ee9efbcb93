/**
 * The session's workspace folder (DESIGN.md §4): every path a tool takes is relative to it, nothing may
 * resolve outside it (`..`, absolute paths, symlinks), and files are written atomically (temp file + rename).
 * Messages name paths relative to the workspace only: the server's own folders are nobody's business.
 */
import { randomBytes } from 'node:crypto';
import { type Dirent, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { EditorError } from './errors.js';

function errnoOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

const ERRNO_REASONS: Readonly<Record<string, string>> = {
  EACCES: '没有权限',
  EPERM: '操作不被允许',
  ENOSPC: '磁盘空间不足',
  EDQUOT: '超出磁盘配额',
  EROFS: '文件系统只读',
  EISDIR: '目标是一个目录',
  ENOTDIR: '路径中的某一部分不是目录',
  ENOENT: '文件或目录不存在',
  EEXIST: '已存在同名文件',
  ENAMETOOLONG: '文件名过长',
  EMFILE: '打开的文件过多',
  ENFILE: '打开的文件过多',
  EBUSY: '文件正被占用',
  EIO: '磁盘读写错误',
  ELOOP: '符号链接层数过多',
};

/**
 * Why a file operation failed, in Chinese and without the error's own message: Node's fs messages carry the
 * absolute path (`EACCES: permission denied, open '/srv/…'`), which would reveal the server's folders.
 */
function reasonOf(err: unknown): string {
  const code = errnoOf(err);
  if (code) return ERRNO_REASONS[code] ?? `系统错误 ${code}`;
  return '未知错误';
}

/** True when `child` is `parent` itself or lies inside it (both absolute and normalised). */
function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  // `..foo.png` is a file inside; only a first step of `..` leaves.
  const up = rel === '..' || rel.startsWith(`..${path.sep}`);
  return rel === '' || (!up && !path.isAbsolute(rel));
}

/**
 * Why `relPath` cannot name a file, or null when it can. Paths are checked as written, before any resolution:
 * blank or dots-only names (` `, `.`, `..`, `a/.`, `...`) and names with spaces at either end (`out.png `)
 * would otherwise become files no one meant (` .png`) or the folder itself. `.` and `..` remain usable as
 * steps inside a path (`./out/a.png`); escaping the workspace is checked by `Workspace.resolve`.
 */
export function pathProblem(relPath: string): string | null {
  if (relPath.trim() === '') return '路径不能为空';
  const segments = relPath.split(/[\\/]/);
  const last = segments[segments.length - 1]!;
  if (last === '' || /^\.+$/.test(last)) return `路径“${relPath}”没有以文件名结尾`;
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') continue;
    if (segment.trim() === '') return `路径“${relPath}”中有空白的文件夹或文件名`;
    if (/^\.+$/.test(segment)) return `路径“${relPath}”中的“${segment}”只由点组成，不是有效的名称`;
    if (segment.trim() !== segment) return `路径“${relPath}”中的名称“${segment}”首尾有空格`;
  }
  return null;
}

/** The hint every refused path gets: what a good path looks like. */
const PATH_HINT = '请提供相对于工作区的文件路径，例如 “out/图1.png”';

/** Atomic writes put their bytes in `.<name>.<pid>.<12 hex>.tmp` beside the target until the rename. */
const TEMP_NAME = /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/;

/** A fresh temp path for an atomic write of `abs` (beside it, recognised by `isAtomicTemp`). */
export function tempPathFor(abs: string): string {
  const name = `.${path.basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  return path.join(path.dirname(abs), name);
}

/** True for the temporary file of an atomic write: not a user's file, left out of listings and disk use. */
export function isAtomicTemp(fileName: string): boolean {
  return TEMP_NAME.test(path.basename(fileName));
}

/**
 * How old an atomic write's temp file must be before `removeOrphanTemps` treats it as orphaned. A live write
 * keeps touching its file until the rename (flush included); a minute of silence means the writer died
 * (killed mid-save). The age, not the pid in the name, decides: several processes may share the workspace.
 */
export const ORPHAN_TEMP_AGE_MS = 60_000;

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
      throw new EditorError(
        'io_error',
        `无法创建或打开工作区目录“${path.basename(this.root)}”：${reasonOf(err)}`,
      );
    }
  }

  /**
   * The absolute path of `relPath` inside the workspace. Rejects (`invalid_arguments`) empty paths, NUL bytes,
   * absolute paths, `..` escapes, and paths whose deepest existing part is a symlink leading outside.
   */
  resolve(relPath: string): string {
    if (typeof relPath !== 'string' || relPath.trim() === '') {
      throw new EditorError('invalid_arguments', '路径不能为空', { hint: PATH_HINT });
    }
    if (relPath.includes('\0')) {
      throw new EditorError('invalid_arguments', `路径“${relPath.replace(/\0/g, '\\0')}”包含非法的空字符`);
    }
    const problem = pathProblem(relPath);
    if (problem) throw new EditorError('invalid_arguments', problem, { hint: PATH_HINT });
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
      throw new EditorError('invalid_arguments', '路径不在工作区内');
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
    await this.writeAtomicWith(relPath, (handle) => handle.writeFile(data));
  }

  /** `writeAtomic` with the bytes written by `write` into the temp file's handle (a file too large to hold). */
  async writeAtomicWith<T>(relPath: string, write: (handle: FileHandle) => Promise<T>): Promise<T> {
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
    const tmp = tempPathFor(abs);
    let created = false;
    let renaming = false;
    try {
      const handle = await open(tmp, 'wx');
      created = true;
      let result: T;
      try {
        result = await write(handle);
        await handle.sync();
      } finally {
        await handle.close();
      }
      renaming = true;
      await rename(tmp, abs);
      created = false;
      return result;
    } catch (err) {
      if (created) await unlink(tmp).catch(() => undefined);
      if (err instanceof EditorError) throw err;
      const code = errnoOf(err);
      const isDir = renaming && (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST');
      const why = isDir ? '目标是一个目录' : reasonOf(err);
      throw new EditorError('io_error', `写入文件“${relPath}”失败：${why}`);
    }
  }

  /**
   * Removes the temp files that atomic writes left behind when their process died mid-save (kill -9), anywhere
   * in the workspace, and returns their workspace-relative paths. Only files of this scheme (`isAtomicTemp`)
   * untouched for `olderThanMs` go, so a save still running in another process sharing the workspace keeps
   * its file; the server calls this at start-up. Symlinks are not followed; unreadable folders are skipped.
   */
  async removeOrphanTemps(olderThanMs = ORPHAN_TEMP_AGE_MS): Promise<string[]> {
    const removed: string[] = [];
    const cutoff = Date.now() - olderThanMs;
    const visit = async (dir: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const abs = path.join(dir, entry.name);
        if (entry.isDirectory()) await visit(abs);
        else if (entry.isFile() && isAtomicTemp(entry.name)) {
          try {
            if ((await stat(abs)).mtimeMs > cutoff) continue;
            await unlink(abs);
            removed.push(this.relative(abs));
          } catch {
            // Renamed into place or removed meanwhile: not an orphan after all.
          }
        }
      }
    };
    await visit(this.root);
    return removed.sort();
  }
}
