/**
 * An image a result carries, shown small in its card with a sign saying it opens; a click opens it full size.
 * Esc, the close button or a click on the dimmed page around it closes it; a click on the image itself does not
 * (one may click to look).
 */
import { useRef } from 'preact/hooks';
import type { ResultImage as Image } from '../api/types.js';
import { useStudioView } from '../context.js';
import { useBlobUrl } from '../state/blob-url.js';

export function ResultImage({ image }: { image: Image }) {
  const { studio, t, lang } = useStudioView();
  const src = useBlobUrl(studio.api, (lang === 'en' ? image.url_en : undefined) ?? image.url);
  const caption = (lang === 'en' ? image.caption_en : undefined) ?? image.caption;
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
          <img src={src} alt={caption ?? ''} />
          {/* The zoom-in pointer is the only other sign that the picture opens, and a phone has no pointer: a
              preview shown 330 px wide in the chat is too small to judge a print by. */}
          <span class="enlarge-cue" aria-hidden="true">
            <svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true">
              <path
                d="M15 3h6v6M9 21H3v-6M21 3l-7 7M3 21l7-7"
                fill="none"
                stroke="currentColor"
                stroke-width="2"
                stroke-linecap="round"
                stroke-linejoin="round"
              />
            </svg>
            {t('image.enlarge')}
          </span>
        </button>
      ) : (
        <div class="image-placeholder" />
      )}
      {caption && <figcaption>{caption}</figcaption>}
      {/* Esc is the dialog's own (a modal dialog closes on it); the click is for the backdrop, on which the
          dialog itself is the target (the image fills the dialog box, so a click on the image targets the image). */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: Esc and the close button are the keyboard's way */}
      <dialog
        ref={dialog}
        class="lightbox"
        aria-label={caption ?? t('image.enlarge')}
        onClick={(e) => {
          if (e.target === e.currentTarget) e.currentTarget.close();
        }}
      >
        {src && <img src={src} alt={caption ?? ''} />}
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
