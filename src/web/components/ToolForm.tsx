/** A tool's form, generated from its parameter schema and limits; running it goes through the session. */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RegistryTool } from '../api/types.js';
import { useStudioView } from '../context.js';
import { argumentsOf, type FormValue, initialValues } from '../forms/arguments.js';
import { fieldKind } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { layerWithId, refOf } from '../state/layers.js';
import { withToolLabels } from '../state/tool-names.js';
import { Field } from './fields.js';

function prefilled(tool: RegistryTool, activeLayer: string | null): Record<string, FormValue> {
  const values = initialValues(tool.parameters, tool.limits);
  for (const [name, schema] of Object.entries(tool.parameters.properties)) {
    // A tool that acts on a named layer most often means the one the user is working on.
    if (activeLayer && values[name] === '' && fieldKind(name, schema, tool.limits[name]).kind === 'layer') {
      values[name] = activeLayer;
    }
  }
  return values;
}

/**
 * Mounted once per tool (the palette keys it by the tool's name), so the prefilled values are set only when the
 * form opens. An effect that refilled them ran after the first paint, which a busy browser may delay past the
 * user's first keystrokes, and wiped what had been typed.
 */
export function ToolForm({ tool, onBack }: { tool: RegistryTool; onBack(): void }) {
  const { studio, t, lang } = useStudioView();
  const doc = studio.state?.active;
  // What a call names the active layer by (its name, or `name#k` when the name is shared).
  const active = doc ? layerWithId(doc.layers, doc.active_layer_id) : undefined;
  const activeLayer = active ? refOf(active) : null;
  const [values, setValues] = useState(() => prefilled(tool, activeLayer));
  const [running, setRunning] = useState(false);
  const params = Object.entries(tool.parameters.properties);
  // The description is cut to two lines, so the fields stay in view; the rest (coordinates, units, what the
  // tool acts on) opens on request, on a touch screen as well (no hover there).
  const description = useRef<HTMLParagraphElement>(null);
  const [cut, setCut] = useState(false);
  const [open, setOpen] = useState(false);
  useLayoutEffect(() => {
    const el = description.current;
    if (el && !open) setCut(el.scrollHeight > el.clientHeight + 1);
  });

  const submit = async (e: Event) => {
    e.preventDefault();
    setRunning(true);
    try {
      await studio.run([{ name: tool.name, arguments: argumentsOf(tool.parameters, values) }]);
    } finally {
      setRunning(false);
    }
  };

  return (
    <form class="tool-form" onSubmit={submit} aria-label={labelIn(tool, lang)}>
      <div class="tool-form-head">
        <button type="button" class="icon-button" aria-label={t('palette.back')} onClick={onBack}>
          ‹
        </button>
        <div>
          <h3>{labelIn(tool, lang)}</h3>
          <code>{tool.name}</code>
        </div>
      </div>
      <p id={`about-${tool.name}`} class={`tool-description${open ? ' open' : ''}`} ref={description}>
        {withToolLabels(tool.description, studio.tools)}
      </p>
      {(cut || open) && (
        <button
          type="button"
          class="text-button more-info"
          aria-expanded={open}
          aria-controls={`about-${tool.name}`}
          onClick={() => setOpen(!open)}
        >
          {t(open ? 'form.lessInfo' : 'form.moreInfo')}
        </button>
      )}
      <div class="fields">
        {params.length === 0 && <p class="muted">{t('card.noArgs')}</p>}
        {params.map(([name, schema]) => (
          <Field
            key={`${tool.name}.${name}`}
            id={`param-${tool.name}-${name}`}
            name={name}
            schema={schema}
            limits={tool.limits[name]}
            required={tool.parameters.required.includes(name)}
            value={values[name] ?? ''}
            onChange={(v) => setValues((old) => ({ ...old, [name]: v }))}
          />
        ))}
      </div>
      <div class="form-actions">
        <button
          type="submit"
          class={`primary${tool.effect === 'destructive' ? ' danger' : ''}`}
          disabled={running}
        >
          {running ? t('palette.running') : t('palette.run')}
        </button>
      </div>
    </form>
  );
}
