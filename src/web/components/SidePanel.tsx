/** Layers, history and files as tabs of the side column. */
import { useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import type { MessageKey } from '../i18n.js';
import { FilesPane } from './FilesPane.js';
import { HistoryPane } from './HistoryPane.js';
import { LayersPane } from './LayersPane.js';

const TABS = [
  { id: 'layers', title: 'layers.title', Pane: LayersPane },
  { id: 'history', title: 'history.title', Pane: HistoryPane },
  { id: 'files', title: 'files.title', Pane: FilesPane },
] as const satisfies readonly { id: string; title: MessageKey; Pane: () => unknown }[];

export function SidePanel() {
  const { studio, t } = useStudioView();
  const [tab, setTab] = useState<(typeof TABS)[number]['id']>('layers');
  const current = TABS.find((x) => x.id === tab)!;
  return (
    <aside class="side-panel" aria-label={t('side.panels')}>
      <div class="tabs" role="tablist">
        {TABS.map((x) => (
          <button
            key={x.id}
            type="button"
            role="tab"
            id={`tab-${x.id}`}
            aria-selected={tab === x.id}
            aria-controls={`panel-${x.id}`}
            onClick={() => setTab(x.id)}
          >
            {t(x.title)}
          </button>
        ))}
      </div>
      <div class="tab-panel" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {/* The layers, history and files of a session that is gone are gone too: none is shown as still there. */}
        {studio.sessionGone ? <p class="pane-empty">{t('side.gone')}</p> : <current.Pane />}
      </div>
    </aside>
  );
}
