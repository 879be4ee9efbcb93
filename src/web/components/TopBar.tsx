/** The brand, the open documents as tabs (switch, close, new), the model in use and the language switch. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { AskDialog } from './AskDialog.js';

const { switchDocument: SWITCH, closeDocument: CLOSE, createDocument: CREATE } = PANE_TOOLS;

/**
 * Which model the chat uses, or that there is none. On a narrow screen (styles.css) it is a dot, green with a
 * model and grey without, that leaves the width to the document tabs: the words are its name and its tooltip,
 * and a tap shows them under it (a touch screen has no hover) until the next tap or a tap elsewhere.
 */
function ModelBadge() {
  const { studio, t } = useStudioView();
  const [open, setOpen] = useState(false);
  const text = studio.model.configured
    ? t('model.some', { model: studio.model.model.model })
    : t('model.none');
  return (
    <button
      type="button"
      class={`model-badge${studio.model.configured ? ' on' : ''}${open ? ' open' : ''}`}
      aria-label={text}
      title={text}
      onClick={() => setOpen(!open)}
      onBlur={() => setOpen(false)}
    >
      <span class="model-dot" aria-hidden="true" />
      <span class="model-text" aria-hidden="true">
        {text}
      </span>
    </button>
  );
}

export function TopBar() {
  const { studio, t, lang, setLang, openTool } = useStudioView();
  const docs = studio.state?.documents ?? [];
  const activeName = docs.find((d) => d.active)?.name;
  const tabs = useRef<HTMLDivElement>(null);
  // Many tabs scroll in their strip: the active one is brought into view when it changes.
  useEffect(() => {
    tabs.current?.querySelector('.doc-tab.active')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [activeName]);
  const docParam = (name: string) => {
    // The parameter of switch_document that names the document, whatever it is called.
    const tool = studio.tools.get(SWITCH);
    const param = tool ? Object.keys(tool.parameters.properties)[0] : undefined;
    return param ? { [param]: name } : {};
  };
  // A tab with unsaved changes asks first, as Photoshop does: save, don't save, or cancel (a browser's OK/Cancel
  // box had no way to save, and its OK lost the changes).
  const [asking, setAsking] = useState<{ name: string; active: boolean } | null>(null);
  // The switch of close_document that saves first, whatever it is called.
  const saveParam = Object.entries(studio.tools.get(CLOSE)?.parameters.properties ?? {}).find(
    ([, schema]) => schema.type === 'boolean',
  )?.[0];
  const close = (name: string, active: boolean, save = false) => {
    setAsking(null);
    const closing = [{ name: CLOSE, arguments: save && saveParam ? { [saveParam]: true } : {} }];
    // A tab closed from beside the one in use: the one in use stays in use (close_document acts on the
    // active document, which then gives way to another).
    const back = activeName !== undefined ? [{ name: SWITCH, arguments: docParam(activeName) }] : [];
    void studio.run(active ? closing : [{ name: SWITCH, arguments: docParam(name) }, ...closing, ...back]);
  };
  return (
    <header class="top-bar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        <span class="brand-name">Atelier</span>
      </div>
      <div class="doc-tabs" role="tablist" aria-label={t('docs.tabs')} ref={tabs}>
        {docs.map((d) => (
          <div key={d.name} class={`doc-tab${d.active ? ' active' : ''}`}>
            <button
              type="button"
              role="tab"
              aria-selected={d.active}
              title={d.name}
              onClick={() => !d.active && studio.run([{ name: SWITCH, arguments: docParam(d.name) }])}
            >
              <span class="doc-title">{d.name}</span>
              {d.unsaved_changes && (
                <span class="unsaved" title={t('docs.unsaved')}>
                  •
                </span>
              )}
            </button>
            <button
              type="button"
              class="doc-close"
              aria-label={t('docs.close', { name: d.name })}
              onClick={() =>
                d.unsaved_changes ? setAsking({ name: d.name, active: d.active }) : close(d.name, d.active)
              }
            >
              ×
            </button>
          </div>
        ))}
        <button type="button" class="doc-new" aria-label={t('docs.new')} onClick={() => openTool(CREATE)}>
          +
        </button>
      </div>
      <AskDialog
        id="close-dialog"
        // Esc, or the browser closing it: nothing is closed.
        onCancel={() => setAsking(null)}
        question={
          asking && {
            text: t('docs.askSave', { name: asking.name }),
            hint: t('docs.askSaveHint'),
            answers: [
              {
                label: t('docs.dontSave'),
                apart: true,
                choose: () => close(asking.name, asking.active, false),
              },
              { label: t('confirm.cancel'), choose: () => setAsking(null) },
              {
                label: t('docs.saveAndClose'),
                tone: 'primary',
                focused: true,
                choose: () => close(asking.name, asking.active, true),
              },
            ],
          }
        }
      />
      <div class="top-right">
        <ModelBadge />
        <button
          type="button"
          class="ghost"
          aria-label={t('lang.switchLabel')}
          onClick={() => setLang(lang === 'zh' ? 'en' : 'zh')}
        >
          {t('lang.switch')}
        </button>
      </div>
    </header>
  );
}
