/**
 * An image a result carries, shown small in its card; a click opens it full size. Esc, the close button or a
 * click on the dimmed page around it closes it; a click on the image itself does not (one may click to look).
 */
import { useRef } from 'preact/hooks';
import type { ResultImage as Image } from '../api/types.js';
import { useStudioView } from '../context.js';
import { useBlobUrl } from '../state/blob-url.js';

export function ResultImage({ image }: { image: Image }) {
  const { studio, t } = useStudioView();
  const src = useBlobUrl(studio.api, image.url);
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <figure class="result-image">
      {src ? (
        <button
          type="button"
          class="image-button"
          aria-label={t('image.enlarge')}
          onClick={() => dialog.current?.showModal()}
        >
          <img src={src} alt={image.caption ?? ''} />
        </button>
      ) : (
        <div class="image-placeholder" />
      )}
      {image.caption && <figcaption>{image.caption}</figcaption>}
      {/* Esc is the dialog's own (a modal dialog closes on it); the click is for the backdrop, on which the
          dialog itself is the target (the image fills the dialog box, so a click on the image targets the image). */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: Esc and the close button are the keyboard's way */}
      <dialog
        ref={dialog}
        class="lightbox"
        aria-label={image.caption ?? t('image.enlarge')}
        onClick={(e) => {
          if (e.target === e.currentTarget) e.currentTarget.close();
        }}
      >
        {src && <img src={src} alt={image.caption ?? ''} />}
        <button
          type="button"
          class="lightbox-close"
          aria-label={t('image.close')}
          title={t('image.close')}
          onClick={() => dialog.current?.close()}
        >
          ×
        </button>
      </dialog>
    </figure>
  );
}
