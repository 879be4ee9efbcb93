/**
 * The active document's composite: rendered by the server at screen size (render.png?max=), shown with zoom
 * and pan, reloaded after every run that may have changed it.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fitView, renderSize, type View, zoomAt } from '../canvas/zoom.js';
import { useStudioView } from '../context.js';
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
          for (const file of Array.from(e.dataTransfer?.files ?? [])) {
            const path = await studio.upload(file, 'document');
            if (path) await studio.run([{ name: PANE_TOOLS.openDocument, arguments: { path } }]);
          }
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
  const [image, setImage] = useState<{ url: string; key: string } | null>(null);
  const drag = useRef<{ x: number; y: number; view: View } | null>(null);
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

  useEffect(() => {
    if (!doc || !studio.sessionId || max === 0) return;
    let live = true;
    const url = `/v1/sessions/${studio.sessionId}/documents/${encodeURIComponent(doc.name)}/render.png?max=${max}`;
    studio.api
      .blob(url)
      .then(({ blob }) => {
        if (!live) return;
        const objectUrl = URL.createObjectURL(blob);
        // The previous image stays until the new one is ready, so the canvas never flashes empty.
        setImage((old) => {
          if (old) URL.revokeObjectURL(old.url);
          return { url: objectUrl, key };
        });
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
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
          drag.current = { x: e.clientX, y: e.clientY, view };
        }}
        onPointerMove={(e) => {
          const start = drag.current;
          if (!start) return;
          setView({
            ...start.view,
            x: start.view.x + e.clientX - start.x,
            y: start.view.y + e.clientY - start.y,
          });
        }}
        onPointerUp={() => {
          drag.current = null;
        }}
        onDblClick={fit}
      >
        {drop.sending && <Sending />}
        {view && (
          <div
            class="artboard"
            style={{
              width: `${doc.width * view.zoom}px`,
              height: `${doc.height * view.zoom}px`,
              transform: `translate(${view.x}px, ${view.y}px)`,
            }}
          >
            {image && (
              <img
                src={image.url}
                alt={t('canvas.image', { name: doc.name })}
                draggable={false}
                class={view.zoom * (window.devicePixelRatio || 1) > 2 ? 'pixelated' : ''}
              />
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
