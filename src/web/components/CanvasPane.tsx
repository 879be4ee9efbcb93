/**
 * The active document's composite: rendered by the server at screen size (render.png?max=), shown with zoom
 * and pan, reloaded after every run that may have changed it.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fitView, renderSize, type View, zoomAt } from '../canvas/zoom.js';
import { useStudioView } from '../context.js';
import { openFiles } from '../state/open-files.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { UploadButton } from './FilesPane.js';

function useViewportSize(ref: { current: HTMLElement | null }) {
  const [size, setSize] = useState({ w: 0, h: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    observer.observe(el);
    setSize({ w: el.clientWidth, h: el.clientHeight });
    return () => observer.disconnect();
  }, [ref]);
  return size;
}

/** Files dropped on the canvas are uploaded and opened, as a designer drags a PSD in from the desktop. */
function useDropToOpen() {
  const { studio } = useStudioView();
  const [over, setOver] = useState(false);
  const [sending, setSending] = useState(false);
  return {
    over,
    /** A dropped file is being sent (shown on the canvas: the status bar is not there before a document). */
    sending,
    handlers: {
      onDragOver: (e: DragEvent) => {
        if (!e.dataTransfer?.types.includes('Files')) return;
        e.preventDefault();
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: async (e: DragEvent) => {
        e.preventDefault();
        setOver(false);
        setSending(true);
        try {
          await openFiles(studio, Array.from(e.dataTransfer?.files ?? []), 'document');
        } finally {
          setSending(false);
        }
      },
    },
  };
}

/** Over the canvas while a dropped file is sent. */
function Sending() {
  const { t } = useStudioView();
  return (
    <div class="upload-overlay" role="status">
      <span class="spinner" aria-hidden="true" />
      {t('status.uploading')}
    </div>
  );
}

function EmptyCanvas() {
  const { t, openTool } = useStudioView();
  return (
    <div class="canvas-empty">
      <div class="empty-art" aria-hidden="true" />
      <h2>{t('canvas.empty')}</h2>
      <p>{t('canvas.emptyHint')}</p>
      <div class="button-row">
        <button type="button" class="primary" onClick={() => openTool(PANE_TOOLS.createDocument)}>
          {t('docs.new')}
        </button>
        <UploadButton kind="document" label={t('canvas.upload')} />
      </div>
    </div>
  );
}

export function CanvasPane() {
  const { studio, t } = useStudioView();
  const doc = studio.state?.active ?? null;
  const viewport = useRef<HTMLDivElement>(null);
  const size = useViewportSize(viewport);
  const [view, setView] = useState<View | null>(null);
  const [image, setImage] = useState<{ url: string; key: string; of: string } | null>(null);
  // The pointers down on the canvas (a mouse, or one or two fingers) where they were last seen.
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const drop = useDropToOpen();

  const fit = useCallback(() => {
    if (doc && size.w > 0) setView(fitView(doc.width, doc.height, size.w, size.h));
  }, [doc?.name, doc?.width, doc?.height, size.w, size.h]);

  // A new document, a new size or a resized window: fit again.
  useEffect(fit, [fit]);

  const max = doc && view ? renderSize(doc.width, doc.height, view.zoom, window.devicePixelRatio || 1) : 0;
  const key = doc
    ? `${doc.name}|${doc.history.index}|${doc.history.labels.length}|${studio.revision}|${max}`
    : '';
  // Which picture an image is of: while the next one loads the last one stays, but only of this document at
  // this size (another document's, stretched to this one's frame, showed a picture that is not there).
  const of = doc ? `${doc.name}|${doc.width}|${doc.height}` : '';

  useEffect(() => {
    if (!doc || !studio.sessionId || max === 0) return;
    // A render no longer wanted (zoomed on past it, another document, a newer step) is not downloaded to the
    // end: a big document's renders are megabytes each, and on a slow line they held up the one wanted.
    const abort = new AbortController();
    const url = `/v1/sessions/${studio.sessionId}/documents/${encodeURIComponent(doc.name)}/render.png?max=${max}`;
    studio.api
      .blob(url, abort.signal)
      .then(({ blob }) => {
        if (abort.signal.aborted) return;
        const objectUrl = URL.createObjectURL(blob);
        // The previous image stays until the new one is ready, so the canvas never flashes empty.
        setImage((old) => {
          if (old) URL.revokeObjectURL(old.url);
          return { url: objectUrl, key, of };
        });
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, [key]);

  if (!doc) {
    return (
      <div class={`canvas-viewport${drop.over ? ' dropping' : ''}`} ref={viewport} {...drop.handlers}>
        <EmptyCanvas />
        {drop.sending && <Sending />}
      </div>
    );
  }

  const zoomBy = (factor: number) => {
    if (view) setView(zoomAt(view, factor, size.w / 2, size.h / 2));
  };
  const actual = () => {
    if (view) setView(zoomAt(view, 1 / view.zoom, size.w / 2, size.h / 2));
  };

  return (
    <>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: pointer pan and zoom; the toolbar below has the same as buttons */}
      <div
        class={`canvas-viewport${drop.over ? ' dropping' : ''}`}
        ref={viewport}
        {...drop.handlers}
        onWheel={(e) => {
          e.preventDefault();
          if (!view) return;
          const box = e.currentTarget.getBoundingClientRect();
          setView(zoomAt(view, Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top));
        }}
        onPointerDown={(e) => {
          if (!view || e.button !== 0) return;
          e.currentTarget.setPointerCapture(e.pointerId);
          pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
        }}
        onPointerMove={(e) => {
          const last = pointers.current.get(e.pointerId);
          if (!last) return;
          const now = { x: e.clientX, y: e.clientY };
          pointers.current.set(e.pointerId, now);
          const other = [...pointers.current].find(([id]) => id !== e.pointerId)?.[1];
          if (!other) {
            setView((v) => v && { ...v, x: v.x + now.x - last.x, y: v.y + now.y - last.y });
            return;
          }
          // Two fingers: the point between them moves the document with it, their spread zooms it there.
          const box = e.currentTarget.getBoundingClientRect();
          const apart = Math.hypot(last.x - other.x, last.y - other.y);
          const spread = apart > 0 ? Math.hypot(now.x - other.x, now.y - other.y) / apart : 1;
          const mid = { x: (now.x + other.x) / 2 - box.left, y: (now.y + other.y) / 2 - box.top };
          const moved = { x: (now.x - last.x) / 2, y: (now.y - last.y) / 2 };
          setView((v) => v && zoomAt({ ...v, x: v.x + moved.x, y: v.y + moved.y }, spread, mid.x, mid.y));
        }}
        // Lifted, or taken by the browser: the pointer no longer moves the view.
        onPointerUp={(e) => pointers.current.delete(e.pointerId)}
        onPointerCancel={(e) => pointers.current.delete(e.pointerId)}
        onDblClick={fit}
      >
        {drop.sending && <Sending />}
        {view && (
          <div
            class={`artboard${image?.of === of ? '' : ' loading'}`}
            style={{
              width: `${doc.width * view.zoom}px`,
              height: `${doc.height * view.zoom}px`,
              transform: `translate(${view.x}px, ${view.y}px)`,
            }}
          >
            {image?.of === of ? (
              <img
                src={image.url}
                alt={t('canvas.image', { name: doc.name })}
                draggable={false}
                class={view.zoom * (window.devicePixelRatio || 1) > 2 ? 'pixelated' : ''}
              />
            ) : (
              <span class="spinner" role="status" aria-label={t('canvas.loading')} />
            )}
          </div>
        )}
        <div class="canvas-tools" onPointerDown={(e) => e.stopPropagation()}>
          <button
            type="button"
            class="icon-button"
            aria-label={t('canvas.zoomOut')}
            onClick={() => zoomBy(1 / 1.25)}
          >
            −
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label={t('canvas.zoomIn')}
            onClick={() => zoomBy(1.25)}
          >
            +
          </button>
          <button type="button" class="text-button" onClick={fit}>
            {t('canvas.fit')}
          </button>
          <button type="button" class="text-button" onClick={actual}>
            {t('canvas.actual')}
          </button>
        </div>
      </div>
      <footer class="status-bar" aria-live="polite">
        <span class="status-doc">
          {doc.name} ·{' '}
          {t('status.size', { w: doc.width, h: doc.height, dpi: doc.resolution, mode: doc.mode })}
        </span>
        {view && (
          <span class="status-zoom">{t('status.zoom', { zoom: Math.round(view.zoom * 1000) / 10 })}</span>
        )}
        <span class={`status-busy${studio.busy ? ' busy' : ''}`}>
          {studio.uploading ? t('status.uploading') : studio.busy ? t('status.busy') : t('status.ready')}
        </span>
      </footer>
    </>
  );
}
