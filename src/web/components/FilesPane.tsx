/**
 * Uploads (documents, the garment photo) and the session's files: open what is a document, download anything,
 * delete what is no longer needed (to make room under the session's disk quota), after the studio's own question.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, deleteSessionFile } from '../api/client.js';
import { useStudioView } from '../context.js';
import { download } from '../state/blob-url.js';
import { failureWords } from '../state/failures.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { AskDialog } from './AskDialog.js';

const OPEN = PANE_TOOLS.openDocument;
const DOCUMENT_FILE = /\.(psd|psb|png|jpe?g)$/i;

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
        accept={kind === 'garment' ? 'image/png,image/jpeg' : '.psd,.psb,image/png,image/jpeg'}
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
  // The file the designer is asked about: deleting cannot be undone, so 取消 has the keys.
  const [asking, setAsking] = useState<string | null>(null);
  // Once the files have changed (a document closed, a file saved), a refusal may no longer hold.
  useEffect(() => setRefusal(null), [studio.files]);
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
      {studio.files.length === 0 ? (
        <p class="pane-empty">{t('files.empty')}</p>
      ) : (
        <ul class="file-list" aria-label={t('files.list')}>
          {studio.files.map((f) => (
            <li key={f.path}>
              <span class="file-name" title={f.path}>
                {f.path.includes('/') && (
                  <span class="file-dir">{f.path.slice(0, f.path.lastIndexOf('/') + 1)}</span>
                )}
                <span class="file-base">{f.path.slice(f.path.lastIndexOf('/') + 1)}</span>
              </span>
              <span class="file-size">{sizeText(f.bytes)}</span>
              <span class="file-actions">
                {DOCUMENT_FILE.test(f.path) && (
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
              </span>
            </li>
          ))}
        </ul>
      )}
      <AskDialog
        id="delete-dialog"
        onCancel={() => setAsking(null)}
        question={
          asking === null
            ? null
            : {
                text: t('files.confirmDelete', { path: asking }),
                hint: t('files.confirmDeleteHint'),
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
