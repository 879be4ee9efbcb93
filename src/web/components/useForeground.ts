/**
 * Photoshop's foreground colour, kept by the document (set_foreground_color, as the model sets it too): the
 * toolbox's swatch and the type tool's colour show it, the eyedropper sets it, new text is set in it and
 * Alt+Delete fills with it. While a colour picker is open its choice shows at once and is sent when chosen.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

export function useForeground(doc: ActiveDocument | null) {
  const { studio } = useStudioView();
  // A colour being picked or on its way: shown until the document's colour changes (to it, or CMYK's nearest).
  const [draft, setDraft] = useState<string | null>(null);
  useEffect(() => setDraft(null), [doc?.foreground, doc?.name]);
  return {
    color: draft ?? doc?.foreground ?? '#000000',
    /** A colour shown while the picker is open. */
    preview: setDraft,
    /** A colour chosen: the document's foreground from now on. */
    set(hex: string) {
      if (!doc || hex.toLowerCase() === doc.foreground) {
        setDraft(null);
        return;
      }
      setDraft(hex);
      void studio
        .run([{ name: PANE_TOOLS.setForeground, arguments: { color: hex }, quiet: true }])
        // Done either way: the state now has the colour the document holds (in CMYK, the nearest it can print).
        .then(() => setDraft(null));
    },
  };
}
