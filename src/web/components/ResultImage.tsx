/** An image a result carries, shown small in its card; a click opens it full size (Esc or a click on it closes). */
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
      <dialog ref={dialog} class="lightbox" aria-label={image.caption ?? t('image.enlarge')}>
        <button
          type="button"
          class="image-button"
          aria-label={t('image.close')}
          onClick={() => dialog.current?.close()}
        >
          {src && <img src={src} alt={image.caption ?? ''} />}
        </button>
      </dialog>
    </figure>
  );
}
