/**
 * Uploads (documents, the garment photo) and the session's files: open what is a document, download anything,
 * delete what is no longer needed (to make room under the session's disk quota), after the studio's own question.
 * The designer's files come first; the session's own records (the chat transcript and the images kept beside it)
 * wait below under a collapsed heading, to download, not to open, and to clear all at once (清空对话记录): the
 * room a long conversation takes comes back under the quota, the documents and files kept.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { IMAGE_FORMATS, namedAs, READ_FORMATS } from '../../registry/file-formats.js';
import { ApiError, deleteSessionFile } from '../api/client.js';
import { useStudioView } from '../context.js';
import { download } from '../state/blob-url.js';
import { failureWords } from '../state/failures.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { AskDialog } from './AskDialog.js';

const OPEN = PANE_TOOLS.openDocument;
/** A file that opens as a document: one of the formats Atelier reads, by its extension. */
const opensAsDocument = (file: string) => namedAs(file, READ_FORMATS);
/** What the pickers offer: PSD by its extensions (browsers know no MIME type for it), images by theirs. */
const ACCEPT_DOCUMENT = READ_FORMATS.map((f) => (f.image ? f.mime : f.extensions.join(','))).join(',');
const ACCEPT_GARMENT = IMAGE_FORMATS.map((f) => f.mime).join(',');
/**
 * The chat's transcript and its kept images, as src/agent/transcript.ts names them, and the MCP client's calls,
 * as src/server/session-events.ts does (the studio imports neither).
 */
const TRANSCRIPT = 'chat.jsonl';
const MCP_CALLS = 'mcp-calls.jsonl';
const KEPT_IMAGES = 'chat-images/';
/** Written to as the session goes on: removed only with the conversation (the server refuses too). */
const isLive = (path: string) => path === TRANSCRIPT || path === MCP_CALLS;
const isRecord = (path: string) => isLive(path) || path.startsWith(KEPT_IMAGES);
/** The transcript first (the record a bug report or a replay wants), then the MCP calls, then the images. */
const recordRank = (path: string) => (path === TRANSCRIPT ? 0 : path === MCP_CALLS ? 1 : 2);
/** What the question is about when it is clearing the conversation (no file path is empty). */
const CLEAR = '';
/**
 * How much of a name's stem is kept whole beside its extension when the name is cut in its middle, in
 * half-width characters: a Chinese character counts two, as it is drawn about twice as wide.
 */
const TAIL = 8;
/** A stem's head must keep at least this many characters for the cut to be worth making. */
const MIN_HEAD = 2;

/** Drawn about as wide as two Latin letters: CJK ideographs, kana, Hangul, full-width forms. */
const wide = (c: string) => (c.codePointAt(0) ?? 0) >= 0x2e80;

/** Where the stem `chars[0, end)` is cut: the last TAIL half-widths of it stay whole (at least one character). */
function tailStart(chars: readonly string[], end: number): number {
  let width = 0;
  let i = end;
  while (i > 0) {
    const w = wide(chars[i - 1]!) ? 2 : 1;
    if (width + w > TAIL && i < end) break;
    width += w;
    i--;
  }
  return i;
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A waste bin: deleting is an icon, so that a long file name keeps its room beside three actions. */
function Bin() {
  return (
    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
      <path
        d="M4 7h16M9 7V4.5h6V7M6.5 7l1 13h9l1-13M10 11v5.5M14 11v5.5"
        fill="none"
        stroke="currentColor"
        stroke-width="1.6"
        stroke-linejoin="round"
      />
    </svg>
  );
}

/**
 * A file's path, cut where it matters least: its folder first, then the middle of its own name, whose end and
 * extension (what tells "…-final-v2.png" from "…-final-v3.png" or "….psd") stay whole. The whole path is the
 * title and the text.
 */
function FileName({ path }: { path: string }) {
  const slash = path.lastIndexOf('/');
  // Code points, so that a cut never splits a character.
  const base = [...path.slice(slash + 1)];
  const dot = base.lastIndexOf('.');
  const split = tailStart(base, dot > 0 ? dot : base.length);
  return (
    <span class="file-name" title={path}>
      {slash >= 0 && <span class="file-dir">{path.slice(0, slash + 1)}</span>}
      {split < MIN_HEAD ? (
        <span class="file-base">{base.join('')}</span>
      ) : (
        <span class="file-base file-split">
          <span class="file-head">{base.slice(0, split).join('')}</span>
          <span class="file-tail">{base.slice(split).join('')}</span>
        </span>
      )}
    </span>
  );
}

/** A button that picks a file and uploads it; a document is opened right away, a garment photo is set. */
export function UploadButton({ kind, label }: { kind: 'document' | 'garment'; label: string }) {
  const { studio, t } = useStudioView();
  const input = useRef<HTMLInputElement>(null);
  // This button's file is being sent: it says so beside it (the status bar may not be there, with no document).
  const [sending, setSending] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => input.current?.click()}
        disabled={!studio.sessionId || studio.uploading}
        aria-busy={studio.uploading}
      >
        {label}
      </button>
      {sending && (
        <span class="upload-progress" role="status">
          <span class="spinner" aria-hidden="true" />
          {t('status.uploading')}
        </span>
      )}
      <input
        ref={input}
        type="file"
        hidden
        aria-label={label}
        accept={kind === 'garment' ? ACCEPT_GARMENT : ACCEPT_DOCUMENT}
        onChange={async (e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (!file) return;
          setSending(true);
          const path = await studio.upload(file, kind).finally(() => setSending(false));
          if (path && kind === 'document') await studio.run([{ name: OPEN, arguments: { path } }]);
        }}
      />
    </>
  );
}

export function FilesPane() {
  const { studio, t } = useStudioView();
  const photo = studio.state?.garment.photo ?? null;
  const base = `/v1/sessions/${studio.sessionId}/files/`;
  // The file being deleted, and why the last deletion was refused (shown until the files change).
  const [deleting, setDeleting] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<{ text: string; detail?: string } | null>(null);
  // The file the designer is asked about (CLEAR: the whole conversation): neither can be undone, so 取消 has
  // the keys.
  const [asking, setAsking] = useState<string | null>(null);
  const [clearing, setClearing] = useState(false);
  // What clearing left, when a document or the garment photo uses some of its images.
  const [keptNote, setKeptNote] = useState<string | null>(null);
  // Once the files have changed (a document closed, a file saved), a refusal may no longer hold.
  useEffect(() => setRefusal(null), [studio.files]);
  const clear = async () => {
    setAsking(null);
    setClearing(true);
    setRefusal(null);
    setKeptNote(null);
    try {
      const cleared = await studio.clearChat();
      if (cleared?.kept.length) setKeptNote(t('files.clearKept', { paths: cleared.kept.join('、') }));
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 'network';
      setRefusal(failureWords(t, code, (err as Error).message));
    } finally {
      setClearing(false);
    }
  };
  const remove = async (path: string) => {
    const id = studio.sessionId;
    setAsking(null);
    if (!id) return;
    setDeleting(path);
    setRefusal(null);
    try {
      await deleteSessionFile(studio.api, id, path);
      await studio.refresh().catch(() => undefined);
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 'network';
      setRefusal(failureWords(t, code, (err as Error).message));
    } finally {
      setDeleting(null);
    }
  };
  const own = studio.files.filter((f) => !isRecord(f.path));
  const records = studio.files
    .filter((f) => isRecord(f.path))
    .sort((a, b) => recordRank(a.path) - recordRank(b.path));
  const recordBytes = records.reduce((n, f) => n + f.bytes, 0);
  const images = records.filter((f) => !isLive(f.path)).length;
  const row = (f: { path: string; bytes: number }, record: boolean) => (
    <li key={f.path}>
      <FileName path={f.path} />
      <span class="file-size">{sizeText(f.bytes)}</span>
      <span class="file-actions">
        {!record && opensAsDocument(f.path) && (
          <button
            type="button"
            class="ghost"
            aria-label={t('files.open', { path: f.path })}
            onClick={() => studio.run([{ name: OPEN, arguments: { path: f.path } }])}
          >
            {t('files.openShort')}
          </button>
        )}
        <button
          type="button"
          class="ghost"
          aria-label={t('files.download', { path: f.path })}
          onClick={() =>
            download(
              studio.api,
              base + f.path.split('/').map(encodeURIComponent).join('/'),
              f.path.split('/').pop()!,
            )
          }
        >
          {t('files.downloadShort')}
        </button>
        {!isLive(f.path) && (
          <button
            type="button"
            class="icon-button"
            aria-label={t('files.delete', { path: f.path })}
            title={t('files.deleteShort')}
            disabled={deleting !== null}
            aria-busy={deleting === f.path}
            onClick={() => setAsking(f.path)}
          >
            <Bin />
          </button>
        )}
      </span>
    </li>
  );
  return (
    <div class="files">
      <div class="button-row">
        <UploadButton kind="document" label={t('files.uploadDocument')} />
        <UploadButton kind="garment" label={t('files.uploadGarment')} />
      </div>
      <p class={`garment-photo${photo ? '' : ' muted'}`}>
        {photo ? t('files.garmentPhoto', { path: photo }) : t('files.noGarment')}
      </p>
      {refusal && (
        <div class="card-error" role="alert">
          <p>{refusal.text}</p>
          {refusal.detail && <p class="hint">{refusal.detail}</p>}
        </div>
      )}
      {keptNote && (
        <p class="hint" role="status">
          {keptNote}
        </p>
      )}
      {own.length === 0 ? (
        <p class="pane-empty">{t('files.empty')}</p>
      ) : (
        <ul class="file-list" aria-label={t('files.list')}>
          {own.map((f) => row(f, false))}
        </ul>
      )}
      {records.length > 0 && (
        <details class="file-records" aria-label={t('files.records')}>
          <summary>{t('files.recordsHeading', { count: records.length })}</summary>
          <p class="hint">{t('files.recordsHint')}</p>
          <ul class="file-list" aria-label={t('files.records')}>
            {records.map((f) => row(f, true))}
          </ul>
          <div class="button-row">
            <button
              type="button"
              disabled={clearing || deleting !== null || studio.chatting}
              aria-busy={clearing}
              onClick={() => setAsking(CLEAR)}
            >
              {t('files.clearChat', { size: sizeText(recordBytes) })}
            </button>
          </div>
        </details>
      )}
      <AskDialog
        id="delete-dialog"
        onCancel={() => setAsking(null)}
        question={
          asking === null
            ? null
            : asking === CLEAR
              ? {
                  text: t('files.confirmClear'),
                  hint: t('files.confirmClearHint', { count: images, size: sizeText(recordBytes) }),
                  answers: [
                    { label: t('confirm.cancel'), focused: true, choose: () => setAsking(null) },
                    { label: t('files.clearShort'), tone: 'danger', choose: () => void clear() },
                  ],
                }
              : {
                  text: t('files.confirmDelete', { path: asking }),
                  hint: t(isRecord(asking) ? 'files.confirmDeleteRecordHint' : 'files.confirmDeleteHint'),
                  answers: [
                    { label: t('confirm.cancel'), focused: true, choose: () => setAsking(null) },
                    { label: t('files.deleteShort'), tone: 'danger', choose: () => void remove(asking) },
                  ],
                }
        }
      />
    </div>
  );
}
