/**
 * The session's workspace folder (DESIGN.md §4): every path a tool takes is relative to it, nothing may
 * resolve outside it (`..`, absolute paths, symlinks), and files are written atomically (temp file + rename).
 * Messages name paths relative to the workspace only: the server's own folders are nobody's business.
 * The service's workspaces also have a disk quota (a write that would take the files past it is refused and
 * leaves nothing) and are private to the user the server runs as (folders 0700, files 0600).
 */
import { randomBytes } from 'node:crypto';
import { type Dirent, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
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
  ENOTSUP: '所在位置不能新建目录',
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

/** Removes `from` and the folders above it up to `upTo`, as long as they are empty. */
async function removeEmptyFolders(from: string, upTo: string): Promise<void> {
  for (let dir = from; isInside(upTo, dir); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (another write's files), or gone
    }
    if (dir === upTo) return;
  }
}

/**
 * Bytes the regular files under `dir` take (the temp files of writes in progress included; symlinks not
 * followed; nothing when it does not exist), leaving out the absolute paths in `except`.
 */
export async function bytesUnder(dir: string, except: readonly string[] = []): Promise<number> {
  const skip = new Set(except);
  let total = 0;
  const visit = async (at: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch {
      return; // removed meanwhile, or not made yet
    }
    for (const entry of entries) {
      const abs = path.join(at, entry.name);
      if (entry.isDirectory()) await visit(abs);
      else if (entry.isFile() && !skip.has(abs)) {
        total += await lstat(abs).then(
          (st) => st.size,
          () => 0,
        );
      }
    }
  };
  await visit(dir);
  return total;
}

/** A write refused for the workspace's quota, saying how much it needed and how much the files already take. */
function quotaExceeded(relPath: string, bytes: number, used: number, quota: number): EditorError {
  return new EditorError(
    'out_of_bounds',
    `本会话的文件空间不足：写入“${relPath}”需要 ${mib(bytes)}，会话里的文件已占用 ${mib(used)}，上限为 ${mib(quota)}；没有写入，原有文件保持不变`,
    {
      hint: '保存到已有的文件名（覆盖它）不会多占空间，也可以新建一个会话；服务的管理员可调大每个会话的磁盘配额 ATELIER_SESSION_DISK_MB',
      details: { needed_bytes: bytes, used_bytes: used, quota_bytes: quota },
    },
  );
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
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

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
 * How old an atomic write's temp file must be before `removeOrphanTemps` treats it as orphaned when the process
 * named in it is alive (or the name gives none). A live write keeps touching its file until the rename (flush
 * included); a minute of silence means the writer died (killed mid-save), its pid since taken by another process.
 * Younger, a live pid may be another Atelier process sharing the workspace whose save is still running.
 */
export const ORPHAN_TEMP_AGE_MS = 60_000;

/**
 * Whether the process that wrote an atomic write's temp file (`.<name>.<pid>.<hex>.tmp`) is known to be dead:
 * no process has the pid in its name (ESRCH). A process of another user (EPERM) is alive; so, to be safe, is one
 * whose pid cannot be read from the name.
 */
function writerIsDead(fileName: string): boolean {
  const pid = Number(TEMP_NAME.exec(fileName)?.[1]);
  // 0 and beyond-int32 pids are no single process (kill(0) signals the process group).
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fffffff) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return errnoOf(err) === 'ESRCH';
  }
}

/** Modes of what a private workspace creates: only the user the server runs as may read or enter them. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export interface WorkspaceOptions {
  /**
   * Bytes the workspace's files may take together (the service's per-session disk quota). A write that would
   * take them past it is refused (`out_of_bounds`), the target left as it was; unlimited when unset.
   */
  readonly quotaBytes?: number;
  /**
   * Folders created 0700 and files 0600, whatever the umask: on a machine shared with other users, a designer's
   * files are nobody else's to read (the service). Off for the CLI, whose files are the user's own to share.
   */
  readonly private?: boolean;
}

const MIB = 1024 * 1024;
/** Bytes as MB to a tenth, for the quota's refusals. */
export const mib = (bytes: number): string =>
  `${(Math.ceil((bytes / MIB) * 10) / 10).toLocaleString('en-US')} MB`;

export class Workspace {
  /** Absolute path of the workspace folder, as given (normalised). */
  readonly root: string;
  /** The folder with every symlink resolved; containment is checked against it. */
  readonly realRoot: string;
  readonly quotaBytes: number | undefined;
  /** Mode of the folders it creates (undefined: the umask decides). */
  readonly dirMode: number | undefined;
  /** Mode of the files it creates (undefined: the umask decides). */
  readonly fileMode: number | undefined;

  /** Opens the workspace at `root` (resolved against the current directory), creating the folder if missing. */
  constructor(root: string, opts: WorkspaceOptions = {}) {
    this.root = path.resolve(root);
    this.quotaBytes = opts.quotaBytes;
    this.dirMode = opts.private ? PRIVATE_DIR_MODE : undefined;
    this.fileMode = opts.private ? PRIVATE_FILE_MODE : undefined;
    try {
      makeFoldersSync(this.root, this.dirMode);
      this.realRoot = realpathSync(this.root);
    } catch (err) {
      throw new EditorError(
        'io_error',
        `无法创建或打开工作区目录“${path.basename(this.root)}”：${reasonOf(err)}`,
      );
    }
  }

  private dirOptions(): { mode?: number } {
    return this.dirMode === undefined ? {} : { mode: this.dirMode };
  }

  /**
   * Creates `abs` (a folder inside the workspace) and the folders above it, with the workspace's mode; returns
   * the first folder it created (undefined when `abs` existed).
   */
  async makeFolder(abs: string): Promise<string | undefined> {
    return mkdir(abs, { recursive: true, ...this.dirOptions() });
  }

  /**
   * Bytes the files in the workspace take now (regular files, the temp files of writes in progress included;
   * symlinks are not followed), leaving out the absolute paths in `except`.
   */
  async usedBytes(except: readonly string[] = []): Promise<number> {
    return bytesUnder(this.root, except);
  }

  /**
   * Bytes that may still be written into the workspace (Infinity without a quota); `except` (absolute) are not
   * counted, such as a file the write would replace.
   */
  async room(except: readonly string[] = []): Promise<number> {
    if (this.quotaBytes === undefined) return Number.POSITIVE_INFINITY;
    return this.quotaBytes - (await this.usedBytes(except));
  }

  /**
   * Refuses (`out_of_bounds`) a write of `bytes` to `relPath` that would take the workspace past its quota.
   * `except` (absolute) are not counted: the target, whose bytes the write gives back, and the write's own temp
   * file.
   */
  async checkQuota(relPath: string, bytes: number, except: readonly string[]): Promise<void> {
    const quota = this.quotaBytes;
    if (quota === undefined) return;
    const used = await this.usedBytes(except);
    if (used + bytes <= quota) return;
    throw quotaExceeded(relPath, bytes, used, quota);
  }

  /**
   * The absolute path of `relPath` inside the workspace (`/` or `\` between folders). Rejects (`invalid_arguments`) empty paths, NUL bytes,
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
    // A backslash separates folders, as pathProblem and the file-name helpers read it (a Windows user's or a
    // model's `out\a.png` means the folder `out`), never a character of a name.
    const abs = path.resolve(this.root, relPath.replace(/\\/g, '/'));
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
    // The size is known: a write past the quota is refused before any byte goes to disk.
    if (this.quotaBytes !== undefined) {
      await this.checkQuota(relPath, data.byteLength, [this.resolve(relPath)]);
    }
    await this.writeAtomicWith(relPath, (handle) => handle.writeFile(data), { quotaChecked: true });
  }

  /** `writeAtomic` with the bytes written by `write` into the temp file's handle (a file too large to hold). */
  async writeAtomicWith<T>(
    relPath: string,
    write: (handle: FileHandle) => Promise<T>,
    // writeAtomic checked its known size before writing: the workspace need not be walked a second time.
    opts: { readonly quotaChecked?: boolean } = {},
  ): Promise<T> {
    const abs = this.resolve(relPath);
    if (abs === this.root) {
      throw new EditorError('invalid_arguments', `路径“${relPath}”是工作区目录本身，不能作为文件写入`);
    }
    const dir = path.dirname(abs);
    let made: string | undefined;
    try {
      made = await this.makeFolder(dir);
    } catch (err) {
      throw new EditorError('io_error', `无法创建目录“${this.relative(dir)}”：${reasonOf(err)}`);
    }
    // The folders just created may not be what resolve() saw; check the final location once more.
    this.resolve(relPath);
    const tmp = tempPathFor(abs);
    let created = false;
    let renaming = false;
    try {
      // Readable too: a writer may check what it wrote (a PSD's header says whether it became a PSB).
      const handle = await open(tmp, 'wx+', this.fileMode);
      created = true;
      let result: T;
      try {
        result = await write(handle);
        await handle.sync();
        // Checked on the bytes written: an encoder's output size is known only once it is done. Until the
        // check the workspace may hold one file more than its quota, never after it.
        if (this.quotaBytes !== undefined && !opts.quotaChecked) {
          await this.checkQuota(relPath, (await handle.stat()).size, [abs, tmp]);
        }
      } finally {
        await handle.close();
      }
      renaming = true;
      await rename(tmp, abs);
      created = false;
      return result;
    } catch (err) {
      if (created) await unlink(tmp).catch(() => undefined);
      // A failed write leaves the workspace as it was: the folders made for it go too, if nothing else came in.
      if (made !== undefined) await removeEmptyFolders(dir, made);
      if (err instanceof EditorError) throw err;
      const code = errnoOf(err);
      const isDir = renaming && (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST');
      const why = isDir ? '目标是一个目录' : reasonOf(err);
      throw new EditorError('io_error', `写入文件“${relPath}”失败：${why}`);
    }
  }

  /**
   * Removes the temp files that atomic writes left behind when their process died mid-save (kill -9), anywhere
   * in the workspace, and returns their workspace-relative paths. Only files of this scheme (`isAtomicTemp`) go:
   * at any age when no process has the pid in the name (a service restarted at once after being killed finds
   * its last save's temp still fresh), and otherwise only when untouched for `olderThanMs`, so a save still
   * running in another process sharing the workspace keeps its file; the server calls this at start-up.
   * Symlinks are not followed; unreadable folders are skipped.
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
            if (!writerIsDead(entry.name) && (await stat(abs)).mtimeMs > cutoff) continue;
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

/**
 * Appends `text` (whole lines, each ending in a newline) to `file`, so that a reader never finds two records glued
 * on one line. A last line left without its newline (a process killed mid-append) is ended first: kept when it
 * is a whole JSON value, cut off otherwise, as `readTranscript` does. An append that fails part-way (a full disk
 * writes part of the bytes and says so only by the count; the next write fails) is cut back to where it began,
 * and the error is thrown.
 */
export async function appendLines(file: string, text: string, mode?: number): Promise<void> {
  if (text === '') return;
  const handle = await open(file, 'a+', mode);
  try {
    const start = await endLastLine(handle);
    const bytes = Buffer.from(text);
    try {
      for (let at = 0; at < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, at);
        if (bytesWritten <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
        at += bytesWritten;
      }
    } catch (err) {
      // Left on disk, the part would be glued to the next line; if this cut fails, the next append ends it.
      await handle.truncate(start).catch(() => undefined);
      throw err;
    }
  } finally {
    await handle.close();
  }
}

/** Ends the file's last line if it has no newline; returns the file's size after. */
async function endLastLine(handle: FileHandle): Promise<number> {
  const size = (await handle.stat()).size;
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  // Back to the last newline, a chunk at a time: a line may be long, the file much longer.
  const chunk = Buffer.alloc(64 * 1024);
  let lineStart = 0;
  for (let end = size; end > 0; ) {
    const from = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - from, from);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) {
      lineStart = from + at + 1;
      break;
    }
    end = from;
  }
  const tail = Buffer.alloc(size - lineStart);
  await handle.read(tail, 0, tail.length, lineStart);
  let whole = true;
  try {
    JSON.parse(tail.toString('utf8'));
  } catch {
    whole = false;
  }
  if (whole) {
    await handle.write('\n');
    return size + 1;
  }
  await handle.truncate(lineStart);
  return lineStart;
}

/**
 * Makes the folder `abs` and the missing folders above it, one level at a time, and returns the first it made
 * (undefined when `abs` existed). Not `mkdirSync(abs, {recursive})`: where a parent exists but refuses new
 * entries with ENOENT (/proc, /sys), Node's recursive mkdir retries the parent and the child for ever. One plain
 * mkdir per missing level cannot loop, and the error names the level that failed.
 */
export function makeFoldersSync(abs: string, mode?: number): string | undefined {
  const missing: string[] = [];
  for (let dir = abs; ; dir = path.dirname(dir)) {
    try {
      if (!statSync(dir).isDirectory()) throw new Error(`ENOTDIR: ${dir} is a file, not a folder`);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(dir) === dir) throw err;
      missing.unshift(dir);
    }
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, mode === undefined ? {} : { mode });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      // ENOENT for a folder whose parent exists: the parent's file system makes none (/proc, /sys).
      const refused = e.code === 'ENOENT';
      const why = refused ? `${path.dirname(dir)} does not accept new folders` : e.message;
      throw Object.assign(
        new Error(`cannot create the folder ${dir}: ${why}${refused ? ` (${e.message})` : ''}`),
        { code: refused ? 'ENOTSUP' : e.code },
      );
    }
  }
  return missing[0];
}
