/**
 * The fonts the server can set text in (GET /v1/fonts: the bundled font's weights, then the machine's own), asked
 * for once, when the type tool is first chosen; null until they arrive (the options bar then has no font choice).
 */
import { useEffect, useState } from 'preact/hooks';
import { useStudioView } from '../context.js';

export interface Fonts {
  readonly default: string;
  readonly fonts: readonly string[];
}

export function useFonts(wanted: boolean): Fonts | null {
  const { studio } = useStudioView();
  const [fonts, setFonts] = useState<Fonts | null>(null);
  useEffect(() => {
    if (!wanted || fonts) return;
    let live = true;
    studio.api
      .json<Fonts>('/v1/fonts')
      .then((f) => {
        if (live) setFonts(f);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [wanted]);
  return fonts;
}
