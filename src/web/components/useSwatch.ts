/**
 * The colour a colour field's swatch shows for what is typed in it: a hex colour itself; press inks (`cmyk(…)`,
 * where the parameter takes them) as the server's soft proof of them in the active document (GET …/ink), asked once
 * typing pauses, since the press profile that turns inks into a screen colour is the server's.
 */
import { useContext, useEffect, useState } from 'preact/hooks';
import { StudioContext } from '../context.js';

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
const INKS = /^\s*cmyk\s*\(/i;
/** How long typing pauses before the inks are asked about (ms). */
const ASK_AFTER_MS = 200;

/** `#abc` / `abc` / `#aabbcc` as the `#rrggbb` a colour input needs; null for anything else. */
export function hexOf(text: string): string | null {
  const m = HEX.exec(text.trim());
  if (!m) return null;
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${hex.toLowerCase()}`;
}

/** The swatch's `#rrggbb` for `text`, or null while there is none to show (inks not yet proofed, or not a colour). */
export function useSwatch(text: string): string | null {
  const view = useContext(StudioContext);
  const sessionId = view?.studio.sessionId ?? null;
  const active = view?.studio.state?.active;
  // The proof depends on the active document's profile: asked again when another document or mode is active.
  const docKey = active ? `${active.name}|${active.mode}` : '';
  const inks = INKS.test(text) ? text.trim() : null;
  const [proof, setProof] = useState<{ of: string; hex: string } | null>(null);
  useEffect(() => {
    if (!inks || !view || !sessionId) return;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      view.studio.api
        .json<{ hex: string }>(`/v1/sessions/${sessionId}/ink?color=${encodeURIComponent(inks)}`, {
          signal: abort.signal,
        })
        .then((r) => setProof({ of: `${inks}|${docKey}`, hex: r.hex }))
        // Not inks after all (a value still being typed), or the session gone: no swatch, the field says why.
        .catch(() => undefined);
    }, ASK_AFTER_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [inks, sessionId, docKey]);
  if (!inks) return hexOf(text);
  return proof?.of === `${inks}|${docKey}` ? proof.hex : null;
}
