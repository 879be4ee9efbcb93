/**
 * The history steps, named by the tools that made them (the server names them by their Chinese labels; in English
 * the same tools' English labels); clicking an earlier step undoes to it, a later one redoes to it.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

const { undo: UNDO, redo: REDO } = PANE_TOOLS;

export function HistoryPane() {
  const { studio, t, lang } = useStudioView();
  const history = studio.state?.active?.history;
  const english = new Map([...studio.tools.values()].map((tool) => [tool.label, tool.labelEn]));
  const stepName = (label: string) => (lang === 'en' ? (english.get(label) ?? label) : label);
  const list = useRef<HTMLOListElement>(null);
  // The current step is kept in view (the newest, after a run, is at the end of a long list), by scrolling the
  // panel only: the page itself stays where the designer is working (in a narrow window the panes stack).
  useLayoutEffect(() => {
    const current = list.current?.querySelector<HTMLElement>('[aria-current="step"]');
    const panel = list.current?.closest<HTMLElement>('.tab-panel');
    if (!current || !panel) return;
    const item = current.getBoundingClientRect();
    const view = panel.getBoundingClientRect();
    if (item.top < view.top) panel.scrollTop -= view.top - item.top;
    else if (item.bottom > view.bottom) panel.scrollTop += item.bottom - view.bottom;
  }, [history?.index, history?.labels.length, studio.state?.active?.name]);
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
    <ol class="history" aria-label={t('history.list')} ref={list}>
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
            <span>{stepName(label)}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
