/** Uploads (documents, the garment photo) and the session's files: open what is a document, download anything. */
import { useRef, useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { download } from '../state/blob-url.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

const OPEN = PANE_TOOLS.openDocument;
const DOCUMENT_FILE = /\.(psd|psb|png|jpe?g)$/i;

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
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
  return (
    <div class="files">
      <div class="button-row">
        <UploadButton kind="document" label={t('files.uploadDocument')} />
        <UploadButton kind="garment" label={t('files.uploadGarment')} />
      </div>
      <p class={`garment-photo${photo ? '' : ' muted'}`}>
        {photo ? t('files.garmentPhoto', { path: photo }) : t('files.noGarment')}
      </p>
      {studio.files.length === 0 ? (
        <p class="pane-empty">{t('files.empty')}</p>
      ) : (
        <ul class="file-list" aria-label={t('files.list')}>
          {studio.files.map((f) => (
            <li key={f.path}>
              <span class="file-name" title={f.path}>
                {f.path}
              </span>
              <span class="file-size">{sizeText(f.bytes)}</span>
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
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
