/** A tool's form, generated from its parameter schema and limits; running it goes through the session. */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { KNOWN_FORMATS } from '../../registry/file-formats.js';
import type { ParamLimits, ParamSchema } from '../../registry/types.js';
import type { RegistryTool } from '../api/types.js';
import { useStudioView } from '../context.js';
import { argumentsOf, emptyRequired, type FormValue, initialValues } from '../forms/arguments.js';
import {
  type Confirmation,
  confirmationFor,
  pathParamsWritten,
  pathsWritten,
} from '../forms/confirmation.js';
import { fieldKind, withoutEscapeNotes } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { layerWithId, refOf, selectedRefs } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { withToolLabels } from '../state/tool-names.js';
import { Field } from './fields.js';
import { usePhysicalSize } from './PhysicalSize.js';

interface Current {
  /** What a call names the active layer by (its name, or `name#k` when the name is shared). */
  readonly layer: string | null;
  readonly selected: readonly string[];
  /** The file the active document would be saved to: its own, or a new one named after it. */
  readonly file: string | null;
}

/**
 * The file a tool writing the document would be given: in the first format its `format` parameter lists (Save As:
 * PSD; Export: PNG, as Photoshop's Export As starts on), the document's own file when it is of that format, else
 * its file's or its name's with that format's extension. PSD without a `format` parameter.
 */
function fileFor(tool: RegistryTool, doc: { readonly name: string; readonly path: string | null }): string {
  const first = tool.parameters.properties.format?.enum?.[0] ?? 'psd';
  const extensions: readonly string[] = KNOWN_FORMATS.find((f) => f.id === first)?.extensions ?? ['.psd'];
  const own = doc.path?.match(/\.[^./]*$/)?.[0]?.toLowerCase();
  if (doc.path && own && extensions.includes(own)) return doc.path;
  return `${doc.path ? doc.path.replace(/\.[^./]*$/, '') : doc.name}${extensions[0]}`;
}

function prefilled(tool: RegistryTool, current: Current): Record<string, FormValue> {
  const values = initialValues(tool.parameters, tool.limits);
  const written = new Set(pathParamsWritten(tool));
  for (const [name, schema] of Object.entries(tool.parameters.properties)) {
    const kind = fieldKind(schema, tool.limits[name]).kind;
    if (values[name] !== '' && kind !== 'layers') continue;
    // A tool that acts on a named layer most often means the one the user is working on; one that acts on a list
    // of layers (align, group, move together), the layers selected; a path written to (另存为), the document's
    // file, as Photoshop's Save As proposes its name.
    if (kind === 'layer' && current.layer) values[name] = current.layer;
    else if (kind === 'layers' && current.selected.length > 0) values[name] = current.selected;
    else if (kind === 'path' && written.has(name) && current.file) values[name] = current.file;
  }
  return values;
}

/** What a required field left blank says: a list is chosen from, anything else filled in. */
function blankWords(schema: ParamSchema, limits: ParamLimits | undefined) {
  const kind = fieldKind(schema, limits).kind;
  return kind === 'document' || kind === 'enum' ? 'form.choose' : 'form.fill';
}

/**
 * Mounted once per tool (the palette keys it by the tool's name), so the prefilled values are set only when the
 * form opens. An effect that refilled them ran after the first paint, which a busy browser may delay past the
 * user's first keystrokes, and wiped what had been typed.
 */
export function ToolForm({ tool, onBack }: { tool: RegistryTool; onBack(): void }) {
  const { studio, t, lang } = useStudioView();
  const doc = studio.state?.active;
  const [values, setValues] = useState(() => {
    const active = doc ? layerWithId(doc.layers, doc.active_layer_id) : undefined;
    return prefilled(tool, {
      layer: active ? refOf(active) : null,
      selected: doc ? selectedRefs(doc) : [],
      file: doc ? fileFor(tool, doc) : null,
    });
  });
  const [running, setRunning] = useState(false);
  // What the designer is asked before a run that would lose something for good, with the arguments asked about.
  const [asking, setAsking] = useState<{ about: Confirmation; args: Record<string, unknown> } | null>(null);
  const cancelAsk = useRef<HTMLButtonElement>(null);
  // The required fields left blank at the last run, said at each field until it is filled in.
  const [blank, setBlank] = useState<readonly string[]>([]);
  useLayoutEffect(() => {
    if (asking) cancelAsk.current?.focus();
  }, [asking]);
  const params = Object.entries(tool.parameters.properties);
  const sizes = usePhysicalSize(tool, values, setValues, setBlank, doc?.resolution);
  // The description is cut to two lines, so the fields stay in view; the rest (coordinates, units, what the
  // tool acts on) opens on request, on a touch screen as well (no hover there).
  const description = useRef<HTMLParagraphElement>(null);
  const [cut, setCut] = useState(false);
  const [open, setOpen] = useState(false);
  useLayoutEffect(() => {
    const el = description.current;
    if (el && !open) setCut(el.scrollHeight > el.clientHeight + 1);
  });

  const runWith = async (args: Record<string, unknown>) => {
    setAsking(null);
    setRunning(true);
    try {
      await studio.run([{ name: tool.name, arguments: args }]);
    } finally {
      setRunning(false);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    // Nothing is sent without a required value; the first such field gets the keys (and comes into view).
    const missing = emptyRequired(tool.parameters, values);
    setBlank(missing);
    if (missing.length > 0) {
      document.getElementById(`param-${tool.name}-${missing[0]}`)?.focus();
      return;
    }
    const args = argumentsOf(tool.parameters, values);
    setRunning(true);
    let about: Confirmation | null;
    try {
      // The file list as it is now (another tab may have saved meanwhile), only when the call writes a file.
      const files = pathsWritten(tool, args).length
        ? await studio.currentFiles().catch(() => studio.files)
        : studio.files;
      const current = studio.state?.active;
      about = confirmationFor(tool, args, {
        files,
        active: current ? { name: current.name, unsaved_changes: current.unsaved_changes } : null,
        closes: tool.name === PANE_TOOLS.closeDocument,
      });
    } finally {
      setRunning(false);
    }
    if (about) setAsking({ about, args });
    else await runWith(args);
  };

  return (
    <form
      class="tool-form"
      onSubmit={submit}
      aria-label={labelIn(tool, lang)}
      // A number's range and step (its spinner's bounds) are the server's to judge, in Chinese beside the call,
      // not the browser's to block in a bubble in the browser's language.
      noValidate
    >
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
        {withToolLabels(withoutEscapeNotes(tool.description), studio.tools, lang)}
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
      {sizes.bar}
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
            value={sizes.shownValue(name)}
            error={blank.includes(name) ? t(blankWords(schema, tool.limits[name])) : undefined}
            {...sizes.noteOf(name)}
            onChange={(v) => {
              // A question about other values than these no longer stands.
              setAsking(null);
              setBlank((old) => old.filter((n) => n !== name));
              sizes.change(name, v);
            }}
          />
        ))}
      </div>
      {asking ? (
        <div
          class="run-confirm"
          role="alertdialog"
          aria-labelledby={`confirm-${tool.name}`}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            setAsking(null);
          }}
        >
          <p id={`confirm-${tool.name}`} class="run-confirm-text">
            {asking.about.kind === 'replace'
              ? t('confirm.replace', { path: asking.about.path })
              : t('docs.confirmClose', { name: asking.about.name })}
          </p>
          <div class="button-row">
            <button type="button" ref={cancelAsk} onClick={() => setAsking(null)}>
              {t('confirm.cancel')}
            </button>
            <button type="button" class="primary danger" onClick={() => void runWith(asking.args)}>
              {t(asking.about.kind === 'replace' ? 'confirm.replaceRun' : 'confirm.discardRun')}
            </button>
          </div>
        </div>
      ) : (
        <div class="form-actions">
          {/* Not red for a tool that may discard work: its history takes it back (see forms/confirmation.ts). */}
          <button type="submit" class="primary" disabled={running}>
            {running ? t('palette.running') : t('palette.run')}
          </button>
        </div>
      )}
    </form>
  );
}
