/**
 * A service session's folder as its calls and uploads see it, with a disk quota that counts everything the
 * session keeps on disk: its files (`sessions/<id>/`) and its journal (`journals/<id>/`: the copies of the
 * files its calls read, its snapshots), which can take as much as the files themselves. A write into the folder
 * and a write into the journal are refused alike when they would take the two past the quota.
 */
import { EditorError } from '../engine/errors.js';
import { bytesUnder, mib, Workspace } from '../engine/workspace.js';

/** What the session's disk holds, for a refusal to say. */
export interface DiskUse {
  readonly files: number;
  readonly journal: number;
}

/**
 * A write refused for the session's quota. `what` says what the write was for, `outcome` what was left as it
 * was. Starts like the workspace's own refusal, which surfaces and tests recognise.
 */
export function sessionDiskFull(
  what: string,
  bytes: number,
  use: DiskUse,
  quota: number,
  outcome: string,
): EditorError {
  return new EditorError(
    'out_of_bounds',
    `本会话的文件空间不足：${what}需要 ${mib(bytes)}，会话里的文件已占用 ${mib(use.files)}，用于恢复会话的记录（打开过的文件的副本、文档和历史的快照）另占 ${mib(use.journal)}，上限为 ${mib(quota)}；${outcome}`,
    {
      hint: '删除会话里不再需要的文件（工作室“文件”面板的“删除”，或 DELETE /v1/sessions/<id>/files/<路径>），或清空对话记录（“文件”面板“会话记录”下的“清空对话记录”，或 DELETE /v1/sessions/<id>/chat：文档和文件都保留）后重试；保存到已有的文件名（覆盖它）不会多占空间；服务的管理员可调大每个会话的磁盘配额 ATELIER_SESSION_DISK_MB',
      details: {
        needed_bytes: bytes,
        used_bytes: use.files + use.journal,
        files_bytes: use.files,
        journal_bytes: use.journal,
        quota_bytes: quota,
      },
    },
  );
}

/** How a designer makes room, in the studio's words (for a message shown without its hint). */
export const MAKE_ROOM =
  '要腾出空间，可以在“文件”面板删除不再需要的文件，或在其中“会话记录”下清空对话记录（文档和文件都保留）';

export class SessionWorkspace extends Workspace {
  constructor(
    root: string,
    /** The session's journal folder, counted in the quota with the files. */
    readonly journalDir: string,
    quotaBytes?: number,
  ) {
    super(root, { private: true, ...(quotaBytes !== undefined ? { quotaBytes } : {}) });
  }

  /** Bytes the session's files (leaving out `except`) and its journal take. */
  async diskUse(except: readonly string[] = []): Promise<DiskUse> {
    const [files, journal] = await Promise.all([super.usedBytes(except), bytesUnder(this.journalDir)]);
    return { files, journal };
  }

  /** The files and the journal together: what the quota is measured against (and `room` subtracts). */
  override async usedBytes(except: readonly string[] = []): Promise<number> {
    const use = await this.diskUse(except);
    return use.files + use.journal;
  }

  override async checkQuota(relPath: string, bytes: number, except: readonly string[]): Promise<void> {
    const quota = this.quotaBytes;
    if (quota === undefined) return;
    const use = await this.diskUse(except);
    if (use.files + use.journal + bytes <= quota) return;
    throw sessionDiskFull(`写入“${relPath}”`, bytes, use, quota, '没有写入，原有文件保持不变');
  }

  /**
   * Refuses (`out_of_bounds`) a write of `bytes` that the service makes beside the session's files (its chat
   * record, `chat.jsonl` and `chat-images/`) when it would take the session past its quota; `what` and `outcome`
   * are the refusal's words for what the write was for and what was left as it was. The chat shows a refusal's
   * message alone, so the message itself says how to make room, in the studio's words.
   */
  async checkWrite(bytes: number, what: string, outcome: string): Promise<void> {
    const quota = this.quotaBytes;
    if (quota === undefined || bytes === 0) return;
    const use = await this.diskUse();
    if (use.files + use.journal + bytes <= quota) return;
    throw sessionDiskFull(what, bytes, use, quota, `${outcome}。${MAKE_ROOM}`);
  }

  /**
   * Refuses (`out_of_bounds`, from `refusal`) a write of `bytes` into the journal that would take the session
   * past its quota.
   */
  async checkJournalWrite(
    bytes: number,
    refusal: (use: DiskUse, quota: number) => EditorError,
  ): Promise<void> {
    const quota = this.quotaBytes;
    if (quota === undefined || bytes === 0) return;
    const use = await this.diskUse();
    if (use.files + use.journal + bytes <= quota) return;
    throw refusal(use, quota);
  }
}
