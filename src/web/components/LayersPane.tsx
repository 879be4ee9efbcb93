/**
 * The active document's layer tree. Clicking a layer selects it (select_layers; with Ctrl/⌘ it is added or taken
 * out, with Shift a range); the eye, the lock, the blend mode, the opacity and the fill go through their tools,
 * with the layer selected first, as those tools act on it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode, RegistryTool } from '../api/types.js';
import { useStudioView } from '../context.js';
import { type EnumOption, enumOptions } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { useSharedBlobUrl } from '../state/blob-url.js';
import {
  flattenLayers,
  layerWithId,
  nextName,
  refOf,
  selectedRefs,
  selectionOf,
  thumbnailUrl,
} from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import type { ToolRun } from '../state/use-studio.js';
import { useLayerDrag } from './useLayerDrag.js';

const {
  selectLayers: SELECT,
  rename: RENAME,
  setVisible: VISIBLE,
  lock: LOCK,
  blendMode: BLEND,
  opacity: OPACITY,
  fillOpacity: FILL,
  arrange: ARRANGE,
  arrangeMany: ARRANGE_MANY,
  loadPixels: LOAD_PIXELS,
  loadChannel: LOAD_CHANNEL,
  saveSelection: SAVE_SELECTION,
  createLayer: CREATE_LAYER,
  createGroup: CREATE_GROUP,
  duplicateLayer: DUPLICATE,
  deleteLayer: DELETE,
} = PANE_TOOLS;

const TYPE_GLYPHS: Record<string, string> = {
  text: 'T',
  group: '▤',
  smart_object: '◇',
  pixel: '▦',
  adjustment: '◐',
};

/** Side of the picture asked for a layer's thumbnail: twice its 30 CSS px, sharp on a high-density screen. */
const THUMB_PX = 64;

/**
 * The layer's own pixels, cropped to where they are, on the light checkerboard the canvas shows transparency
 * on, under the picture only (a white background is a white thumbnail, as in Photoshop) (the server's thumbnail, asked again only when its key changes: new pixels, not a new opacity or name): a
 * layer named 图层 12 is seen to be the collar without hiding the others. A group and a text layer show their
 * glyph, as in Photoshop; a placed image its badge over the picture.
 */
function LayerThumb({ layer, document }: { layer: LayerNode; document: string }) {
  const { studio } = useStudioView();
  const url = studio.sessionId ? thumbnailUrl(studio.sessionId, document, layer, THUMB_PX) : null;
  const image = useSharedBlobUrl(studio.api, url);
  if (!layer.thumbnail) {
    return (
      <span class="layer-glyph" aria-hidden="true">
        {TYPE_GLYPHS[layer.type] ?? '▦'}
      </span>
    );
  }
  return (
    <span class="layer-thumb" aria-hidden="true">
      {image && (
        <span class="layer-pixels">
          <img src={image} alt="" draggable={false} />
        </span>
      )}
      {layer.type === 'smart_object' && <span class="layer-badge">{TYPE_GLYPHS.smart_object}</span>}
    </span>
  );
}

/** The characters of a layer's name that stay in view however full its row: layers are told apart by how they start. */
const NAME_KEPT = 4;

/**
 * A layer's name, cut at its end with an ellipsis when the row is short of room, but never to fewer than its
 * first four characters: 茶园春色… rather than 茶…, the badges beside it giving way next. The head (the first
 * three) does not shrink; the rest keeps room for a character and the ellipsis (see .layer-title's styles).
 */
function LayerTitle({ name }: { name: string }) {
  const chars = [...name];
  const cut = chars.length > NAME_KEPT ? NAME_KEPT - 1 : chars.length;
  return (
    <span class="layer-title" title={name}>
      <span class="layer-title-head">{chars.slice(0, cut).join('')}</span>
      {cut < chars.length && <span class="layer-title-tail">{chars.slice(cut).join('')}</span>}
    </span>
  );
}

function Eye({ open }: { open: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
      <path
        d="M2 12s3.6-6.5 10-6.5S22 12 22 12s-3.6 6.5-10 6.5S2 12 2 12Z"
        fill="none"
        stroke="currentColor"
        stroke-width="1.6"
        opacity={open ? 1 : 0.35}
      />
      {open ? (
        <circle cx="12" cy="12" r="3" fill="currentColor" />
      ) : (
        <path d="M4 20 20 4" stroke="currentColor" stroke-width="1.6" />
      )}
    </svg>
  );
}

/** Photoshop's lock mark: open, closed and hollow for a partial lock (position, pixels or transparency), filled for all. */
function Lock({ closed, partial = false }: { closed: boolean; partial?: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="15" height="15" aria-hidden="true">
      <rect
        x="5"
        y="11"
        width="14"
        height="9"
        rx="2"
        fill={closed && !partial ? 'currentColor' : 'none'}
        stroke="currentColor"
        stroke-width="1.6"
      />
      <path
        d={closed || partial ? 'M8 11V8a4 4 0 0 1 8 0v3' : 'M8 11V8a4 4 0 0 1 7.5-2'}
        fill="none"
        stroke="currentColor"
        stroke-width="1.6"
      />
    </svg>
  );
}

/** The blend-mode parameter of the blend tool (the one with an enum) and its options, labelled. */
function blendModes(blendTool: RegistryTool | undefined): { param: string | undefined; modes: EnumOption[] } {
  const param = Object.entries(blendTool?.parameters.properties ?? {}).find(([, s]) => s.enum)?.[0];
  return { param, modes: param ? enumOptions(blendTool!.parameters.properties[param]!) : [] };
}

/**
 * The current layer's blend mode, opacity and fill, as Photoshop's layers panel shows them; a change goes to every
 * selected layer that can take it (not a locked one, not the background), or to the current layer alone (whose
 * refusal then says why) when none can.
 */
function LayerProperties({
  layer,
  selected,
  then,
}: {
  layer: LayerNode;
  selected: readonly LayerNode[];
  then(calls: ToolRun[]): void;
}) {
  const { studio, t, lang } = useStudioView();
  const each = (call: (l: LayerNode) => ToolRun, can = (l: LayerNode) => !l.locked && !l.background) => {
    const targets = selected.filter(can);
    then((targets.length ? targets : [layer]).map(call));
  };
  const { param: modeParam, modes } = blendModes(studio.tools.get(BLEND));
  const opacityLimits = studio.tools.get(OPACITY)?.limits.opacity;
  const [opacity, setOpacity] = useState(layer.opacity);
  useEffect(() => setOpacity(layer.opacity), [layer.opacity, layer.id]);
  const fillLimits = studio.tools.get(FILL)?.limits.fill_opacity;
  const layerFill = layer.fill_opacity ?? 100;
  const [fill, setFill] = useState(layerFill);
  useEffect(() => setFill(layerFill), [layerFill, layer.id]);
  // As in Photoshop, the background layer's mode and opacity are greyed out (it is opaque, at the bottom): with it
  // current, a change would reach only the other selected layers while the panel showed it for the background.
  const fixed = layer.locked || layer.background === true;
  // A group has no fill (its own pixels are none).
  const noFill = layer.type === 'group' || layer.background === true || !studio.tools.has(FILL);
  return (
    <div class="layer-props">
      <div class="prop-row">
        <label for="layer-blend">{t('layers.blend')}</label>
        <select
          id="layer-blend"
          value={layer.blend_mode}
          disabled={fixed || !modeParam}
          onChange={(e) => {
            const mode = e.currentTarget.value;
            each((l) => ({ name: BLEND, arguments: { name: refOf(l), [modeParam!]: mode } }));
          }}
        >
          {/* A group's pass-through is not one of the modes a tool can set. */}
          {!modes.some((m) => m.value === layer.blend_mode) && (
            <option value={layer.blend_mode} disabled>
              {layer.blend_mode === 'pass_through' ? t('layers.passThrough') : layer.blend_mode}
            </option>
          )}
          {modes.map((m) => (
            <option key={m.value} value={m.value}>
              {labelIn(m, lang)}
            </option>
          ))}
        </select>
      </div>
      <div class="prop-row">
        <label for="layer-opacity">{t('layers.opacity')}</label>
        <input
          id="layer-opacity"
          type="range"
          min={opacityLimits?.min ?? 0}
          max={opacityLimits?.max ?? 100}
          step={1}
          value={opacity}
          disabled={fixed}
          onInput={(e) => setOpacity(Number(e.currentTarget.value))}
          onChange={(e) => {
            const value = Number(e.currentTarget.value);
            each((l) => ({ name: OPACITY, arguments: { name: refOf(l), opacity: value } }));
          }}
        />
        <output for="layer-opacity">{Math.round(opacity)}%</output>
      </div>
      <div class="prop-row">
        <label for="layer-fill">{t('layers.fill')}</label>
        <input
          id="layer-fill"
          type="range"
          min={fillLimits?.min ?? 0}
          max={fillLimits?.max ?? 100}
          step={1}
          value={noFill ? 100 : fill}
          disabled={layer.locked || noFill}
          onInput={(e) => setFill(Number(e.currentTarget.value))}
          onChange={(e) => {
            const value = Number(e.currentTarget.value);
            each(
              (l) => ({ name: FILL, arguments: { name: refOf(l), fill_opacity: value } }),
              (l) => !l.locked && !l.background && l.type !== 'group',
            );
          }}
        />
        <output for="layer-fill">{noFill ? '—' : `${Math.round(fill)}%`}</output>
      </div>
    </div>
  );
}

/** The layer's mask beside its thumbnail, as in Photoshop: white where it shows the layer, black where it hides. */
function MaskThumb({ layer, document }: { layer: LayerNode; document: string }) {
  const { studio, t } = useStudioView();
  const url = studio.sessionId ? thumbnailUrl(studio.sessionId, document, layer, THUMB_PX, 'mask') : null;
  const image = useSharedBlobUrl(studio.api, url);
  return (
    <span class="layer-thumb mask-thumb" title={t('layers.mask')}>
      {image && <img src={image} alt={t('layers.mask')} draggable={false} />}
    </span>
  );
}

/**
 * The layer's name as a field, as a double-click on it gives in Photoshop: Enter or leaving it renames the layer
 * (rename_layer, which acts on the selected layer: it is selected first), Esc keeps the name. The field takes
 * the tool's own limit on a name's length.
 */
function NameField({ layer, done }: { layer: LayerNode; done(name: string | null): void }) {
  const { studio, t } = useStudioView();
  const input = useRef<HTMLInputElement>(null);
  const settled = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (name: string | null) => {
    if (settled.current) return;
    settled.current = true;
    done(name);
  };
  return (
    <input
      ref={input}
      class="layer-rename"
      aria-label={t('layers.rename', { name: refOf(layer) })}
      defaultValue={layer.name}
      maxLength={studio.tools.get(RENAME)?.limits.new_name?.maxLength}
      onKeyDown={(e) => {
        if (e.key === 'Enter') finish(e.currentTarget.value);
        else if (e.key === 'Escape') finish(null);
        e.stopPropagation();
      }}
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}

const ACTION_ICONS: Record<string, string> = {
  // A page with a plus; a folder; two pages; a bin.
  [CREATE_LAYER]: 'M6 4h9l3 3v13H6z M12 10v6 M9 13h6',
  [CREATE_GROUP]: 'M3 7h6l2 2h10v10H3z',
  [DUPLICATE]: 'M8 8h11v12H8z M5 16V4h11',
  [DELETE]: 'M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13 M10 11v6 M14 11v6',
};

/**
 * The buttons under the layer list, as at the foot of Photoshop's Layers panel: a new layer (图层 N) and a new group
 * (组 N) above the current layer, the selected layers duplicated or deleted. Each is its tool, labelled from the
 * registry; the history takes any of them back.
 */
/** A pane's icon button: its label read out and shown on hover (`title`, else the label), its icon drawn on 24 × 24. */
function IconButton({
  label,
  title = label,
  size = 17,
  disabled = false,
  onClick,
  children,
}: {
  label: string;
  title?: string;
  size?: number;
  disabled?: boolean;
  onClick: () => void;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class="icon-button"
      aria-label={label}
      title={title}
      disabled={disabled}
      onClick={onClick}
    >
      <svg viewBox="0 0 24 24" width={size} height={size} aria-hidden="true">
        {children}
      </svg>
    </button>
  );
}

function LayerActions({ layers, hasSelection }: { layers: readonly LayerNode[]; hasSelection: boolean }) {
  const { studio, t, lang } = useStudioView();
  const actions = [
    { name: CREATE_LAYER, args: () => ({ name: nextName(layers, t('layers.newName')) }), needs: false },
    { name: CREATE_GROUP, args: () => ({ name: nextName(layers, t('layers.newGroupName')) }), needs: false },
    { name: DUPLICATE, args: () => ({}), needs: true },
    { name: DELETE, args: () => ({}), needs: true },
  ];
  return (
    <div class="layer-actions" role="toolbar" aria-label={t('layers.actions')}>
      {actions.map(({ name, args, needs }) => {
        const tool = studio.tools.get(name);
        if (!tool) return null;
        const label = labelIn(tool, lang);
        return (
          <IconButton
            key={name}
            label={label}
            disabled={needs && !hasSelection}
            onClick={() => studio.run([{ name, arguments: args() }])}
          >
            <path
              d={ACTION_ICONS[name]}
              fill="none"
              stroke="currentColor"
              stroke-width="1.6"
              stroke-linejoin="round"
            />
          </IconButton>
        );
      })}
    </div>
  );
}

/**
 * The layers a click on `layer`'s row selects, as in Photoshop's Layers panel: the layer alone; with Ctrl/⌘ the
 * layer added to the selection, or taken out of it; with Shift every row from the current layer to it. The current
 * layer first (select_layers makes its first name the current one), so that the next Shift-click reaches from the
 * same layer. Null: nothing to change.
 */
function clickSelection(
  rows: readonly { layer: LayerNode }[],
  doc: {
    readonly layers: readonly LayerNode[];
    selected_layer_ids: readonly number[];
    active_layer_id: number | null;
  },
  layer: LayerNode,
  e: Pick<MouseEvent, 'shiftKey' | 'ctrlKey' | 'metaKey'>,
): string[] | null {
  const active = layerWithId(doc.layers, doc.active_layer_id);
  const selected = [
    ...(active ? [active] : []),
    ...doc.selected_layer_ids.flatMap((id) => {
      const l = id === active?.id ? undefined : layerWithId(doc.layers, id);
      return l ? [l] : [];
    }),
  ];
  if (e.shiftKey && active) {
    const ids = rows.map((r) => r.layer.id);
    const [from, to] = [ids.indexOf(active.id), ids.indexOf(layer.id)];
    if (from < 0 || to < 0) return [refOf(layer)];
    const range = rows.slice(Math.min(from, to), Math.max(from, to) + 1).map((r) => r.layer);
    return [active, ...range.filter((l) => l.id !== active.id)].map(refOf);
  }
  if (e.ctrlKey || e.metaKey) {
    if (!selected.some((l) => l.id === layer.id)) return [layer, ...selected].map(refOf);
    const rest = selected.filter((l) => l.id !== layer.id);
    return rest.length ? rest.map(refOf) : null;
  }
  return [refOf(layer)];
}

/**
 * The layers a drag of `layer`'s row moves: every selected layer but the background when the row is one of
 * several selected, else the row's own layer.
 */
function draggedBlock(doc: ActiveDocument, layer: LayerNode): LayerNode[] {
  if (doc.selected_layer_ids.length < 2 || !doc.selected_layer_ids.includes(layer.id)) return [layer];
  return doc.selected_layer_ids.flatMap((id) => {
    const l = layerWithId(doc.layers, id);
    return l && !l.background ? [l] : [];
  });
}

function hasDescendant(layer: LayerNode, id: number): boolean {
  return (layer.children ?? []).some((c) => c.id === id || hasDescendant(c, id));
}

export function LayersPane() {
  const { studio, t, lang } = useStudioView();
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const [renaming, setRenaming] = useState<number | null>(null);
  const blendNames = new Map(
    blendModes(studio.tools.get(BLEND)).modes.map((o) => [o.value, labelIn(o, lang)]),
  );
  const blendLabel = (mode: string) => blendNames.get(mode) ?? mode;
  const doc = studio.state?.active;
  const drag = useLayerDrag(
    doc?.layers ?? [],
    (group) => !collapsed.has(group.id),
    (layer, drop) => {
      const reference = refOf(drop.target);
      const block = doc ? draggedBlock(doc, layer) : [layer];
      if (block.length === 1)
        return studio.run([
          { name: ARRANGE, arguments: { name: refOf(layer), position: drop.position, reference } },
        ]);
      // Several selected rows dragged: they move together, as in Photoshop (never onto one of themselves).
      if (block.some((l) => l.id === drop.target.id || hasDescendant(l, drop.target.id))) return;
      return studio.run([
        {
          name: ARRANGE_MANY,
          arguments: { layer_names: block.map(refOf), position: drop.position, reference },
        },
      ]);
    },
  );
  if (!doc) return <p class="pane-empty">{t('layers.empty')}</p>;
  // By id: layers may share a name.
  const selected = new Set<number>(selectionOf(doc));
  const rows = flattenLayers(doc.layers, collapsed);
  const active = layerWithId(doc.layers, doc.active_layer_id);
  const toggle = (id: number) =>
    setCollapsed((old) => {
      const next = new Set(old);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  // Property tools act on the selected layer: select it in the same request, before the change.
  const onLayer = (layer: LayerNode, calls: ToolRun[]) =>
    studio.run([{ name: SELECT, arguments: { names: [refOf(layer)] }, quiet: true }, ...calls]);
  // The eye, the lock and the properties leave the layer selection as it was, as in Photoshop. The tools make the
  // layer they change the current one (what a model expects), so the selection is put back after them in the
  // same request: it is not history, and a Delete or a drag that follows acts on what the designer selected.
  // The selection is read when the request is sent, after the runs before it: a row clicked just before the eye
  // has selected by then, and that selection is the one kept.
  // A change made to several selected layers at once is one history step, as in Photoshop.
  const keepingSelection = (calls: ToolRun[]) =>
    studio.run(
      (now) => {
        const shown = now?.active?.name === doc.name ? now.active : doc;
        const keep = selectedRefs({ ...shown, selected_layer_ids: selectionOf(shown) });
        return keep.length ? [...calls, { name: SELECT, arguments: { names: keep }, quiet: true }] : calls;
      },
      { oneStep: true },
    );
  const selectedLayers = [...selected].flatMap((id) => {
    const l = layerWithId(doc.layers, id);
    return l ? [l] : [];
  });
  return (
    <div class="layers">
      <ul
        ref={drag.listRef}
        class={`layer-list${drag.dragging ? ' dragging' : ''}`}
        aria-label={t('layers.tree')}
        onClickCapture={drag.swallowClick}
        // As in Photoshop, Delete (or Backspace) with the layer list in hand deletes the selected layers.
        onKeyDown={(e) => {
          if ((e.key !== 'Delete' && e.key !== 'Backspace') || (e.target as Element).closest('input')) return;
          if (!selected.size || !studio.tools.has(DELETE)) return;
          e.preventDefault();
          studio.run([{ name: DELETE, arguments: {} }]);
        }}
      >
        {rows.map(({ layer, depth }) => {
          // A file's partial locks, named (position, image pixels, transparent pixels); undefined without.
          const partly =
            layer.locks && !layer.locked
              ? layer.locks.map((k) => t(`layers.locks.${k}`)).join(t('layers.listJoin'))
              : undefined;
          const dragged = drag.dragging && selected.has(drag.dragging.id) ? selected : null;
          const drop =
            drag.dragging?.drop?.target.id === layer.id &&
            !(dragged && dragged.size > 1 && dragged.has(layer.id))
              ? drag.dragging.drop.position
              : null;
          const pictures = (
            <>
              <LayerThumb layer={layer} document={doc.name} />
              {layer.mask_thumbnail && <MaskThumb layer={layer} document={doc.name} />}
            </>
          );
          return (
            <li
              key={layer.id}
              data-layer-id={layer.id}
              class={`layer-row${selected.has(layer.id) ? ' selected' : ''}${layer.visible ? '' : ' hidden-layer'}${
                drag.dragging?.id === layer.id || dragged?.has(layer.id) ? ' dragged' : ''
              }${drop ? ` drop-${drop}` : ''}`}
              style={{ paddingLeft: `${4 + depth * 16}px`, '--row-indent': `${4 + depth * 16}px` }}
              onPointerDown={(e) => renaming !== layer.id && drag.press(e, layer)}
            >
              {layer.children ? (
                <button
                  type="button"
                  class="icon-button disclosure"
                  aria-label={t(collapsed.has(layer.id) ? 'layers.expand' : 'layers.collapse', {
                    name: layer.name,
                  })}
                  aria-expanded={!collapsed.has(layer.id)}
                  onClick={() => toggle(layer.id)}
                >
                  {collapsed.has(layer.id) ? '▸' : '▾'}
                </button>
              ) : (
                <span class="disclosure-space" />
              )}
              <button
                type="button"
                class="icon-button"
                aria-label={t(layer.visible ? 'layers.hide' : 'layers.show', { name: refOf(layer) })}
                aria-pressed={layer.visible}
                onClick={() =>
                  keepingSelection([
                    { name: VISIBLE, arguments: { name: refOf(layer), visible: !layer.visible } },
                  ])
                }
              >
                <Eye open={layer.visible} />
              </button>
              {renaming === layer.id ? (
                <span class="layer-name">
                  {pictures}
                  <NameField
                    layer={layer}
                    done={(name) => {
                      setRenaming(null);
                      const next = name?.trim();
                      if (next && next !== layer.name)
                        onLayer(layer, [{ name: RENAME, arguments: { new_name: next } }]);
                    }}
                  />
                </span>
              ) : (
                <button
                  type="button"
                  class="layer-name"
                  aria-label={refOf(layer)}
                  aria-pressed={selected.has(layer.id)}
                  onClick={(e) => {
                    // As in Photoshop, Ctrl/⌘-click on the thumbnail loads the layer's pixels as the selection.
                    const onPicture = (e.target as Element).closest('.layer-thumb, .layer-glyph');
                    if (onPicture && (e.ctrlKey || e.metaKey)) {
                      studio.run([{ name: LOAD_PIXELS, arguments: { name: refOf(layer) } }]);
                      return;
                    }
                    // From the selection as it is once the clicks before have answered: a Ctrl-click right after
                    // a click adds to what that click selected, not to the selection the page showed before it.
                    const keys = { shiftKey: e.shiftKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey };
                    studio.run((now) => {
                      const shown = now?.active?.name === doc.name ? now.active : doc;
                      const names = clickSelection(
                        flattenLayers(shown.layers, collapsed),
                        shown,
                        layer,
                        keys,
                      );
                      return names ? [{ name: SELECT, arguments: { names }, quiet: true }] : [];
                    });
                  }}
                  // As in Photoshop, a double-click on the name renames the layer (not a locked one).
                  onDblClick={() => !layer.locked && setRenaming(layer.id)}
                >
                  {pictures}
                  <LayerTitle name={layer.name} />
                  {layer.clipped && <span class="tag">↳</span>}
                  {layer.effects?.length ? (
                    <span
                      class="tag fx"
                      title={layer.effects.map((e) => t(`layers.effect.${e}`)).join(t('layers.effectJoin'))}
                    >
                      fx
                    </span>
                  ) : null}
                  {layer.blend_mode !== 'normal' && layer.blend_mode !== 'pass_through' && (
                    <span class="tag blend" title={blendLabel(layer.blend_mode)}>
                      {blendLabel(layer.blend_mode)}
                    </span>
                  )}
                  {layer.opacity < 100 && <span class="tag">{Math.round(layer.opacity)}%</span>}
                </button>
              )}
              <button
                type="button"
                class={`icon-button lock${layer.locked || layer.locks ? ' on' : ''}`}
                aria-label={
                  partly
                    ? t('layers.lockPartial', { name: refOf(layer), what: partly })
                    : t(layer.locked ? 'layers.unlock' : 'layers.lock', { name: refOf(layer) })
                }
                title={partly}
                aria-pressed={layer.locked}
                // As Photoshop's lock-all button: a partly locked layer is then wholly locked.
                onClick={() =>
                  keepingSelection([{ name: LOCK, arguments: { name: refOf(layer), locked: !layer.locked } }])
                }
              >
                <Lock closed={layer.locked} partial={partly !== undefined} />
              </button>
            </li>
          );
        })}
      </ul>
      {doc.channels && <ChannelList channels={doc.channels} hasPixelSelection={doc.has_selection} />}
      <LayerActions layers={doc.layers} hasSelection={selected.size > 0} />
      {active && <LayerProperties layer={active} selected={selectedLayers} then={keepingSelection} />}
    </div>
  );
}

/**
 * A document's spot and alpha channels, as Photoshop's Channels panel lists them below the colour channels: a
 * spot channel's swatch is its ink as the canvas shows it; an alpha channel loads as the selection, and the
 * selection saves as a new alpha channel from the foot, as the panel's buttons do.
 */
function ChannelList({
  channels,
  hasPixelSelection,
}: {
  channels: NonNullable<ActiveDocument['channels']>;
  hasPixelSelection: boolean;
}) {
  const { studio, t, lang } = useStudioView();
  const load = studio.tools.get(LOAD_CHANNEL);
  const save = studio.tools.get(SAVE_SELECTION);
  return (
    <section class="channel-list" aria-label={t('channels.title')} title={t('channels.note')}>
      <h3>{t('channels.title')}</h3>
      <ul class="channel-rows">
        {channels.map((c) => (
          <li key={c.name}>
            <span
              class={`channel-swatch${c.color ? '' : ' none'}`}
              style={c.color ? { background: c.color } : undefined}
              aria-hidden="true"
            />
            <span class="channel-name">{c.name}</span>
            <span class="channel-kind">{t(c.kind === 'spot' ? 'channels.spot' : 'channels.alpha')}</span>
            {c.kind === 'alpha' && load && (
              <IconButton
                label={`${labelIn(load, lang)}：${c.name}`}
                title={labelIn(load, lang)}
                size={15}
                onClick={() => studio.run([{ name: LOAD_CHANNEL, arguments: { channel: c.name } }])}
              >
                <circle
                  cx="12"
                  cy="12"
                  r="7"
                  fill="none"
                  stroke="currentColor"
                  stroke-width="1.6"
                  stroke-dasharray="2.5 2"
                />
              </IconButton>
            )}
          </li>
        ))}
      </ul>
      {save && (
        <div class="channel-actions">
          <IconButton
            label={labelIn(save, lang)}
            disabled={!hasPixelSelection}
            onClick={() => studio.run([{ name: SAVE_SELECTION, arguments: {} }])}
          >
            <rect
              x="4.5"
              y="4.5"
              width="15"
              height="15"
              rx="1.5"
              fill="none"
              stroke="currentColor"
              stroke-width="1.6"
            />
            <circle cx="12" cy="12" r="4" fill="currentColor" />
          </IconButton>
        </div>
      )}
    </section>
  );
}
