import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Api } from './api/client.js';
import { CanvasPane } from './components/CanvasPane.js';
import { ChatPane } from './components/ChatPane.js';
import { SidePanel } from './components/SidePanel.js';
import { TopBar } from './components/TopBar.js';
import { StudioContext, type StudioView } from './context.js';
import { type Lang, translator } from './i18n.js';
import { layerNames } from './state/layers.js';
import { useEditShortcuts } from './state/shortcuts.js';
import { useStudio } from './state/use-studio.js';

const LANG_KEY = 'atelier.lang';

/**
 * A file dropped where nothing takes it (the chat, a pane) would make the browser leave the studio to show the
 * file. Only the canvas opens dropped files; elsewhere a file drop does nothing.
 */
function useStrayDropsKept(): void {
  useEffect(() => {
    const keep = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);
}

export function App({ api }: { api: Api }) {
  const studio = useStudio(api);
  const [lang, setLangState] = useState<Lang>(() => (localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh'));
  const [paletteTool, openTool] = useState<string | null>(null);
  const t = useMemo(() => translator(lang), [lang]);
  useEditShortcuts(studio, openTool, t('layers.newGroupName'));
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  }, [lang]);
  useStrayDropsKept();
  const view: StudioView = {
    studio,
    t,
    lang,
    setLang: (next) => {
      localStorage.setItem(LANG_KEY, next);
      setLangState(next);
    },
    openTool,
    paletteTool,
  };

  if (studio.bootError) {
    return (
      <div class="boot">
        <p role="alert">
          {studio.bootError === 'unauthorized'
            ? t('app.needToken')
            : t('app.bootFailed', { message: studio.bootError })}
        </p>
        <button type="button" class="primary" onClick={() => window.location.reload()}>
          {t('app.retry')}
        </button>
      </div>
    );
  }
  if (!studio.registry || !studio.sessionId) {
    return (
      <div class="boot">
        <p>{t('app.loading')}</p>
      </div>
    );
  }

  return (
    <StudioContext.Provider value={view}>
      <div class="app">
        <TopBar />
        <main class="workspace">
          <ChatPane />
          <section class="canvas-pane" aria-label={studio.state?.active?.name ?? t('canvas.empty')}>
            <CanvasPane />
          </section>
          <SidePanel />
        </main>
        <datalist id="atelier-layer-names">
          {layerNames(studio.state?.active?.layers ?? []).map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <datalist id="atelier-file-paths">
          {studio.files.map((f) => (
            <option key={f.path} value={f.path} />
          ))}
        </datalist>
      </div>
    </StudioContext.Provider>
  );
}
