/** What every pane reads: the studio (state and actions), the UI language, and the palette's chosen tool. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang, Translate } from './i18n.js';
import type { Studio } from './state/use-studio.js';

export interface StudioView {
  readonly studio: Studio;
  readonly t: Translate;
  readonly lang: Lang;
  setLang(lang: Lang): void;
  /** Opens the toolbox on one tool's form (e.g. 新建文档 from the empty canvas). */
  openTool(name: string | null): void;
  readonly paletteTool: string | null;
}

export const StudioContext = createContext<StudioView | null>(null);

export function useStudioView(): StudioView {
  const view = useContext(StudioContext);
  if (!view) throw new Error('useStudioView outside StudioContext');
  return view;
}
