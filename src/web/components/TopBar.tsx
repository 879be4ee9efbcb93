/** The brand, the open documents as tabs (switch, close, new), the model in use and the language switch. */
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

const { switchDocument: SWITCH, closeDocument: CLOSE, createDocument: CREATE } = PANE_TOOLS;

export function TopBar() {
  const { studio, t, lang, setLang, openTool } = useStudioView();
  const docs = studio.state?.documents ?? [];
  const docParam = (name: string) => {
    // The parameter of switch_document that names the document, whatever it is called.
    const tool = studio.tools.get(SWITCH);
    const param = tool ? Object.keys(tool.parameters.properties)[0] : undefined;
    return param ? { [param]: name } : {};
  };
  const close = (name: string, active: boolean, unsaved: boolean) => {
    if (unsaved && !window.confirm(t('docs.confirmClose', { name }))) return;
    const closing = [{ name: CLOSE, arguments: {} }];
    void studio.run(active ? closing : [{ name: SWITCH, arguments: docParam(name) }, ...closing]);
  };
  return (
    <header class="top-bar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        Atelier
      </div>
      <div class="doc-tabs" role="tablist" aria-label={t('docs.tabs')}>
        {docs.map((d) => (
          <div key={d.name} class={`doc-tab${d.active ? ' active' : ''}`}>
            <button
              type="button"
              role="tab"
              aria-selected={d.active}
              onClick={() => !d.active && studio.run([{ name: SWITCH, arguments: docParam(d.name) }])}
            >
              {d.name}
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
              onClick={() => close(d.name, d.active, d.unsaved_changes)}
            >
              ×
            </button>
          </div>
        ))}
        <button type="button" class="doc-new" aria-label={t('docs.new')} onClick={() => openTool(CREATE)}>
          +
        </button>
      </div>
      <div class="top-right">
        <span class={`model-badge${studio.model.configured ? ' on' : ''}`}>
          {studio.model.configured ? t('model.some', { model: studio.model.model.model }) : t('model.none')}
        </span>
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
