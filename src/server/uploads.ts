/**
 * Files uploaded into a session's workspace: the real type is read from the first bytes (never from the name
 * or the declared content type), only the formats Atelier reads are taken (registry/file-formats.ts: WebP and
 * AVIF because product photos saved from web shops usually are), and the name must stay inside the workspace.
 */
import { constants } from 'node:fs';
import { copyFile, link, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { EditorError } from '../engine/errors.js';
import { type FileType, sniffFileType, unreadableFormat } from '../engine/io/file-type.js';
import type { Workspace } from '../engine/workspace.js';
import { formatNames, READ_FORMATS } from '../registry/file-formats.js';
import { HttpError } from './errors.js';

export type UploadType = FileType;

const FORMAT = Object.fromEntries(READ_FORMATS.map((f) => [f.id, f])) as Readonly<
  Record<UploadType, (typeof READ_FORMATS)[number]>
>;
const extensionsOf = (type: UploadType): readonly string[] => FORMAT[type].extensions;

/** The MIME types of what uploads take, for a refusal to list. */
export const ACCEPTED_TYPES = READ_FORMATS.map((f) => f.mime);

export const UPLOAD_ROLES = ['garment'] as const;
export type UploadRole = (typeof UPLOAD_ROLES)[number];

export function roleOf(raw: string | undefined | null): UploadRole | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if ((UPLOAD_ROLES as readonly string[]).includes(raw)) return raw as UploadRole;
  throw new HttpError(400, 'bad_request', `role 的值“${raw}”无效，可用的值：${UPLOAD_ROLES.join('、')}`, {
    allowed: UPLOAD_ROLES,
  });
}

/**
 * The workspace-relative path to write: the given name (folders allowed, confined to the workspace), with the
 * type's extension added when it has none; null without a name (`placeUpload` then picks `upload-<n>.<ext>`).
 * A name whose extension says another type is refused.
 */
export function uploadPath(workspace: Workspace, given: string | undefined, type: UploadType): string | null {
  if (given === undefined || given.trim() === '') return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (given.length > 1024 || /[\u0000-\u001f]/.test(given)) {
    throw new HttpError(400, 'bad_request', '文件名超过 1024 个字符或含有控制字符');
  }
  let name = given.replace(/\\/g, '/');
  const base = path.posix.basename(name);
  if (name.endsWith('/') || base === '' || base === '.' || base === '..') {
    throw new HttpError(400, 'bad_request', `文件名“${given}”无效：须指明一个文件`);
  }
  const givenExt = path.posix.extname(name).toLowerCase();
  if (givenExt === '') {
    name += extensionsOf(type)[0]!;
  } else if (!extensionsOf(type).includes(givenExt)) {
    throw new HttpError(
      400,
      'bad_request',
      `文件是 ${FORMAT[type].name}，文件名却以“${givenExt}”结尾：请用 ${extensionsOf(type).join(' 或 ')}`,
    );
  }
  let abs: string;
  try {
    abs = workspace.resolve(name);
  } catch (err) {
    if (err instanceof EditorError) {
      throw new HttpError(400, 'bad_request', `文件名“${given}”无效：须是会话文件夹里的路径`);
    }
    throw err;
  }
  return workspace.relative(abs);
}

/** Refuses a body of a format Atelier does not read (415), naming it when it is one a designer meets (HEIC). */
export function requireImageType(buf: Uint8Array): UploadType {
  if (buf.length === 0) throw new HttpError(400, 'bad_request', '上传的文件是空的');
  const type = sniffFileType(buf);
  if (!type) {
    const known = unreadableFormat(buf);
    throw new HttpError(
      415,
      'unsupported_media_type',
      known
        ? `这是 ${known.what}，无法读取：${known.hint}`
        : `只接受 ${formatNames(READ_FORMATS, '和')} 文件（类型按文件内容判断）`,
      { accepted: ACCEPTED_TYPES, ...(known ? { format: known.name } : {}) },
    );
  }
  return type;
}

const MB = 1024 * 1024;
const mb = (bytes: number): string => `${(Math.ceil((bytes / MB) * 10) / 10).toLocaleString('en-US')} MB`;

/**
 * An upload refused for the session's disk quota: what the session keeps on disk (its files and its journal),
 * what the upload needed (at least: it may have been stopped before its end).
 */
export function quotaFull(quota: number, used: number, bytes: number, atLeast: boolean): HttpError {
  return new HttpError(
    507,
    'quota_exceeded',
    `本会话的文件空间不足：会话最多可占 ${mb(quota)} 磁盘（文件和用于恢复会话的记录合计），已占 ${mb(used)}，这个上传需要${atLeast ? '超过 ' : ' '}${mb(bytes)}，什么也没有保存。请删除不再需要的文件（对文件的地址发 DELETE），或上传覆盖同名文件，或新开一个会话`,
    { quota_bytes: quota, used_bytes: used },
  );
}

/**
 * Moves a received upload (a temp file in the session folder) to `target`, workspace-relative, creating its
 * folders, or to the first free `upload-<n>.<ext>` when `target` is null; returns where it went. On failure the
 * temp file is removed and the target is left as it was.
 */
export async function placeUpload(
  workspace: Workspace,
  tempPath: string,
  target: string | null,
  type: UploadType,
): Promise<string> {
  if (target === null) return placeUnnamed(workspace, tempPath, extensionsOf(type)[0]!);
  try {
    const abs = workspace.resolve(target);
    await workspace.makeFolder(path.dirname(abs));
    // The folders just created may not be what resolve() saw; check the final location once more.
    workspace.resolve(target);
    await rename(tempPath, abs);
    return target;
  } catch (err) {
    await unlink(tempPath).catch(() => undefined);
    if (err instanceof EditorError && err.code === 'invalid_arguments') {
      throw new HttpError(400, 'bad_request', `无法写入“${target}”：${err.message}`);
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') {
      throw new HttpError(400, 'bad_request', `无法写入“${target}”：路径上有同名的文件夹或文件挡着`);
    }
    throw storeFailed(err);
  }
}

function storeFailed(err: unknown): HttpError {
  // Node's own message would name the server's folders.
  const code = (err as NodeJS.ErrnoException).code;
  return new HttpError(500, 'internal', `上传无法保存（${code ?? '未知错误'}）`);
}

/**
 * Gives the upload the first `upload-<n>.<ext>` no file has, taking the name in the same step as it checks it:
 * two uploads without a name at once would otherwise both find `upload-1` free, and the second would replace the
 * first. A hard link fails when the name exists; where the file system has none, an exclusive copy does the same.
 */
async function placeUnnamed(workspace: Workspace, tempPath: string, ext: string): Promise<string> {
  try {
    for (let n = 1; ; n++) {
      const name = `upload-${n}${ext}`;
      let abs: string;
      try {
        abs = workspace.resolve(name);
      } catch {
        continue; // a symbolic link leading out of the workspace: not a name to write
      }
      try {
        await link(tempPath, abs).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EPERM' && err.code !== 'ENOTSUP' && err.code !== 'ENOSYS') throw err;
          return copyFile(tempPath, abs, constants.COPYFILE_EXCL);
        });
        return name;
      } catch (err) {
        // Taken (a file, a folder, or a link of the user's): the next number.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  } catch (err) {
    throw storeFailed(err);
  } finally {
    await unlink(tempPath).catch(() => undefined);
  }
}
