/** The history steps in Chinese; clicking an earlier step undoes to it, a later one redoes to it. */
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

const { undo: UNDO, redo: REDO } = PANE_TOOLS;

export function HistoryPane() {
  const { studio, t } = useStudioView();
  const history = studio.state?.active?.history;
  if (!history) return <p class="pane-empty">{t('history.empty')}</p>;
  const go = (i: number) => {
    if (i < history.index) void studio.run([{ name: UNDO, arguments: { steps: history.index - i } }]);
    else if (i > history.index) void studio.run([{ name: REDO, arguments: { steps: i - history.index } }]);
  };
  return (
    <ol class="history" aria-label={t('history.list')}>
      {history.labels.map((label, i) => (
        <li key={i}>
          <button
            type="button"
            class={i === history.index ? 'current' : i > history.index ? 'future' : ''}
            aria-current={i === history.index ? 'step' : undefined}
            disabled={studio.busy}
            onClick={() => go(i)}
          >
            <span class="step-no">{i}</span>
            <span>{label}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
