import type { ResultImage as Image } from '../api/types.js';
import { useStudioView } from '../context.js';
import { useBlobUrl } from '../state/blob-url.js';

export function ResultImage({ image }: { image: Image }) {
  const { studio } = useStudioView();
  const src = useBlobUrl(studio.api, image.url);
  return (
    <figure class="result-image">
      {src ? <img src={src} alt={image.caption ?? ''} /> : <div class="image-placeholder" />}
      {image.caption && <figcaption>{image.caption}</figcaption>}
    </figure>
  );
}
