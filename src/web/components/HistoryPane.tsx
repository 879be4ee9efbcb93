/** The history steps in Chinese; clicking an earlier step undoes to it, a later one redoes to it. */
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

const { undo: UNDO, redo: REDO } = PANE_TOOLS;

export function HistoryPane() {
  const { studio, t } = useStudioView();
  const history = studio.state?.active?.history;
  if (!history) return <p class="pane-empty">{t('history.empty')}</p>;
  // Counted from the history as the server has it now: another tab may have added or undone steps. When the
  // steps up to the one clicked are no longer the ones shown, the fresh list is shown instead, to click again.
  const go = async (i: number) => {
    const fresh = (await studio.refresh().catch(() => null))?.active?.history;
    if (
      !fresh ||
      fresh.labels.length <= i ||
      fresh.labels.slice(0, i + 1).join('\n') !== history.labels.slice(0, i + 1).join('\n')
    )
      return;
    if (i < fresh.index) void studio.run([{ name: UNDO, arguments: { steps: fresh.index - i } }]);
    else if (i > fresh.index) void studio.run([{ name: REDO, arguments: { steps: i - fresh.index } }]);
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
            onClick={() => void go(i)}
          >
            <span class="step-no">{i}</span>
            <span>{label}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
