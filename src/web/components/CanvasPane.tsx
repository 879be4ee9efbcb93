/**
 * The active document's composite: rendered by the server at screen size (render.png?max=), shown with zoom
 * and pan, reloaded after every run that may have changed it.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import {
  type Corner,
  fitRect,
  fitView,
  keepCentre,
  panBy,
  renderSize,
  type View,
  wheelPixels,
  wheelZoomFactor,
  zoomAt,
} from '../canvas/zoom.js';
import { useStudioView } from '../context.js';
import { fromPixels } from '../forms/physical.js';
import { labelIn, type MessageKey } from '../i18n.js';
import { reportCanvasFailed, reportCanvasPicture } from '../state/canvas-shown.js';
import { layerWithId, refOf, selectedRefs } from '../state/layers.js';
import { openFiles } from '../state/open-files.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { usePieceMark, usePieceShown } from '../state/piece-mark.js';
import { inFormControl } from '../state/shortcuts.js';
import { BrushOptionsBar } from './BrushOptionsBar.js';
import { CropHandles } from './CropHandles.js';
import { UploadButton } from './FilesPane.js';
import { GradientOptionsBar } from './GradientOptionsBar.js';
import { PictureGhost } from './PictureGhost.js';
import { SelectionOptionsBar } from './SelectionOptionsBar.js';
import {
  modeArgument,
  modeOf,
  type SelectionOptions,
  useSelectionOptions,
  wandArguments,
} from './selection-options.js';
import { type TextAlign, TextEditor, textLayerAt, useTextTool } from './TextTool.js';
import { type CanvasTool, ToolIcon } from './ToolIcon.js';
import { TransformHandles } from './TransformHandles.js';
import { newTextOptions, TypeOptionsBar } from './TypeOptionsBar.js';
import { type BrushOptions, useBrush } from './useBrush.js';
import { useCrop } from './useCrop.js';
import { useFonts } from './useFonts.js';
import { useForeground } from './useForeground.js';
import { type GradientOptions, useGradient } from './useGradient.js';
import { useLasso } from './useLasso.js';
import { type MoveOffset, useLayerMove } from './useLayerMove.js';
import { rectPath, useMarquee } from './useMarquee.js';
import { useRectDrag } from './useRectDrag.js';

function useViewportSize(ref: { current: HTMLElement | null }) {
  const [size, setSize] = useState({ w: 0, h: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    observer.observe(el);
    setSize({ w: el.clientWidth, h: el.clientHeight });
    return () => observer.disconnect();
  }, [ref]);
  return size;
}

/** Files dropped on the canvas are uploaded and opened, as a designer drags a PSD in from the desktop. */
function useDropToOpen() {
  const { studio } = useStudioView();
  const [over, setOver] = useState(false);
  const [sending, setSending] = useState(false);
  return {
    over,
    /** A dropped file is being sent (shown on the canvas: the status bar is not there before a document). */
    sending,
    handlers: {
      onDragOver: (e: DragEvent) => {
        if (!e.dataTransfer?.types.includes('Files')) return;
        e.preventDefault();
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: async (e: DragEvent) => {
        e.preventDefault();
        setOver(false);
        setSending(true);
        try {
          await openFiles(studio, Array.from(e.dataTransfer?.files ?? []), 'document');
        } finally {
          setSending(false);
        }
      },
    },
  };
}

/** Over the canvas while a dropped file is sent. */
function Sending() {
  const { t } = useStudioView();
  return (
    <div class="upload-overlay" role="status">
      <span class="spinner" aria-hidden="true" />
      {t('status.uploading')}
    </div>
  );
}

/**
 * The session this tab worked on is gone, and its documents with it: the canvas says so, rather than showing an
 * empty page to start on (nothing can run in that session) or the last picture as if it were still there.
 */
function SessionGone() {
  const { studio, t } = useStudioView();
  return (
    <div class="canvas-empty session-gone" role="status">
      <div class="empty-art" aria-hidden="true" />
      <h2>{t('canvas.gone')}</h2>
      <p>{t('canvas.goneHint')}</p>
      <div class="button-row">
        <button type="button" class="primary" disabled={studio.busy} onClick={() => void studio.newSession()}>
          {t('notice.newSession')}
        </button>
      </div>
    </div>
  );
}

function EmptyCanvas() {
  const { t, openTool } = useStudioView();
  return (
    <div class="canvas-empty">
      <div class="empty-art" aria-hidden="true" />
      <h2>{t('canvas.empty')}</h2>
      <p>{t('canvas.emptyHint')}</p>
      <div class="button-row">
        <button type="button" class="primary" onClick={() => openTool(PANE_TOOLS.createDocument)}>
          {t('docs.new')}
        </button>
        <UploadButton kind="document" label={t('canvas.upload')} />
      </div>
    </div>
  );
}

/** How much the zoom buttons and keys zoom in or out at a time. */
const ZOOM_STEP = 1.25;
/** Ctrl/⌘ with these keys (by their place; the numeric keypad's too) zoom the view. */
const ZOOM_KEYS: Readonly<Record<string, 'in' | 'out' | 'fit' | 'actual'>> = {
  Equal: 'in',
  NumpadAdd: 'in',
  Minus: 'out',
  NumpadSubtract: 'out',
  Digit0: 'fit',
  Numpad0: 'fit',
  Digit1: 'actual',
  Numpad1: 'actual',
};

/** Arrow keys nudge the selected layers one document pixel, with Shift this many (Photoshop's). */
const NUDGE_LARGE = 10;
/** Arrow keys with no layer to nudge pan this many screen pixels; with Shift, the larger step. */
const PAN_STEP = 40;
const PAN_STEP_LARGE = 200;
const ARROWS: Readonly<Record<string, readonly [number, number]>> = {
  ArrowLeft: [1, 0],
  ArrowRight: [-1, 0],
  ArrowUp: [0, 1],
  ArrowDown: [0, -1],
};

/**
 * Space held is the hand tool, as in Photoshop and Figma: a drag then pans even from a selected layer (which it
 * would otherwise move), and what the space must not do is its usual work: press the canvas button last clicked (放大 zoomed in
 * again, 适合窗口 undid the pan) or scroll the page away from the canvas (a narrow window's panes scroll). It is
 * the hand when the canvas has the keys (a click on it gives them), or when nothing has them and the pointer is
 * over the canvas; typing in the message box or a form, or working in another pane, keeps its spaces. Whether
 * the space is held: a click with the hand is not a click that selects a layer.
 */
/** How far into the viewport the toolbox floating on its left reaches (px): a fitted document starts past it. */
function toolboxEdge(viewport: HTMLElement | null): number {
  const box = viewport?.querySelector('.canvas-toolbox');
  if (!viewport || !box) return 0;
  return Math.max(0, box.getBoundingClientRect().right - viewport.getBoundingClientRect().left);
}

/**
 * The box the zoom bar floating in the viewport's bottom-right corner takes, measured from the viewport's right and
 * bottom edges (px): a fitted document stays clear of it. Undefined when it is not there.
 */
function zoomBarCorner(viewport: HTMLElement | null): Corner | undefined {
  const bar = viewport?.querySelector('.canvas-tools');
  if (!viewport || !bar) return undefined;
  const view = viewport.getBoundingClientRect();
  const box = bar.getBoundingClientRect();
  return {
    w: Math.max(0, view.left + viewport.clientWidth - box.left),
    h: Math.max(0, view.top + viewport.clientHeight - box.top),
  };
}

function useSpaceForHand(
  viewport: { current: HTMLElement | null },
  enabled: boolean,
): { readonly current: boolean } {
  const hand = useRef(false);
  useEffect(() => {
    const el = viewport.current;
    if (!enabled || !el) return;
    let over = el.matches(':hover');
    hand.current = false;
    const isSpace = (e: KeyboardEvent) => e.code === 'Space' || e.key === ' ';
    const canvasHasKeys = () => {
      const focused = document.activeElement;
      // The type tool's box on the canvas takes the space as text, as Photoshop's does while type is edited.
      if (inFormControl(focused)) return false;
      return el.contains(focused) || (over && (!focused || focused === document.body));
    };
    const onDown = (e: KeyboardEvent) => {
      if (!isSpace(e) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (!hand.current && !canvasHasKeys()) return;
      e.preventDefault();
      hand.current = true;
    };
    const onUp = (e: KeyboardEvent) => {
      if (!isSpace(e) || !hand.current) return;
      // A focused button is pressed by the space's release: this one was the hand's.
      e.preventDefault();
      hand.current = false;
    };
    const onBlur = () => {
      hand.current = false;
    };
    const onEnter = () => {
      over = true;
    };
    const onLeave = () => {
      over = false;
    };
    el.addEventListener('pointerenter', onEnter);
    el.addEventListener('pointerleave', onLeave);
    window.addEventListener('keydown', onDown, true);
    window.addEventListener('keyup', onUp, true);
    window.addEventListener('blur', onBlur);
    return () => {
      el.removeEventListener('pointerenter', onEnter);
      el.removeEventListener('pointerleave', onLeave);
      window.removeEventListener('keydown', onDown, true);
      window.removeEventListener('keyup', onUp, true);
      window.removeEventListener('blur', onBlur);
    };
  }, [viewport, enabled]);
  return hand;
}

/**
 * The selected layers' bounds (document px), but for empty ones; `outlined` but for those as large as the canvas,
 * whose box is the canvas's edge (a background, a full-size photo): they can still be dragged.
 */
function selectedBounds(doc: ActiveDocument) {
  return doc.selected_layer_ids.flatMap((id) => {
    const b = layerWithId(doc.layers, id)?.bounds;
    if (!b || b.empty === true) return [];
    const [x, y, w, h] = [b.left, b.top, b.width, b.height].map(Number) as [number, number, number, number];
    if (!(w > 0 && h > 0)) return [];
    const outlined = !(x <= 0 && y <= 0 && x + w >= doc.width && y + h >= doc.height);
    return [{ id, x, y, w, h, outlined }];
  });
}

/**
 * The box round the selected layers the transform handles scale and turn, and the layers the call names; null for
 * none, or when one of them is locked (wholly or its position), hidden or the background (Photoshop's Free
 * Transform refuses those too: "the target layer is hidden"). An empty selected layer has no box and is left out of it, as in Photoshop, rather than
 * hiding the handles of the rest; it is still named, so it stays selected.
 */
function transformable(doc: ActiveDocument) {
  const selected = doc.selected_layer_ids.map((id) => layerWithId(doc.layers, id));
  if (selected.some((l) => !l || l.locked || l.locks?.includes('position') || l.background || !l.visible))
    return null;
  const boxes = selectedBounds(doc);
  if (boxes.length === 0) return null;
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const w = Math.max(...boxes.map((b) => b.x + b.w)) - x;
  const h = Math.max(...boxes.map((b) => b.y + b.h)) - y;
  // The current layer first, so that the selection stays as it was.
  return { key: boxes.map((b) => b.id).join(','), box: { x, y, w, h }, names: selectedRefs(doc) };
}

/**
 * A selected layer's outline; while the layer is dragged, moved with the pointer and holding the part of the
 * canvas's picture it covered, faded, so the designer sees what goes where before the server has moved it.
 */
function SelectedBox({
  box,
  zoom,
  offset,
  picture,
  doc,
}: {
  box: { id: number; x: number; y: number; w: number; h: number };
  zoom: number;
  offset: MoveOffset | null;
  picture: string | null;
  doc: ActiveDocument;
}) {
  const moving = offset?.ids.has(box.id) ? offset : null;
  const place = {
    left: `${(box.x + (moving?.dx ?? 0)) * zoom}px`,
    top: `${(box.y + (moving?.dy ?? 0)) * zoom}px`,
    width: `${box.w * zoom}px`,
    height: `${box.h * zoom}px`,
  };
  return (
    <>
      {moving && picture && (
        <PictureGhost
          picture={picture}
          place={place}
          from={box}
          to={box}
          zoom={zoom}
          docSize={{ w: doc.width, h: doc.height }}
        />
      )}
      <span
        class={`layer-outline${moving ? ' moving' : ''}`}
        aria-hidden="true"
        data-layer={box.id}
        style={place}
      />
    </>
  );
}

/** The canvas's tools in the toolbox's order, with Photoshop's key for each. */
/** An SVG over the whole artboard in document pixels: what a tool draws while the pointer drags. */
function DocOverlay({
  doc,
  class: kind,
  children,
}: {
  doc: { width: number; height: number };
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <svg
      class={kind ? `doc-overlay ${kind}` : 'doc-overlay'}
      aria-hidden="true"
      viewBox={`0 0 ${doc.width} ${doc.height}`}
      preserveAspectRatio="none"
    >
      {children}
    </svg>
  );
}

const CANVAS_TOOLS: readonly { id: CanvasTool; key: string }[] = [
  { id: 'move', key: 'V' },
  { id: 'marquee', key: 'M' },
  { id: 'lasso', key: 'L' },
  { id: 'wand', key: 'W' },
  { id: 'crop', key: 'C' },
  { id: 'eyedropper', key: 'I' },
  { id: 'brush', key: 'B' },
  { id: 'gradient', key: 'G' },
  { id: 'text', key: 'T' },
];

const TOOL_KEYS: Record<string, CanvasTool> = {
  KeyV: 'move',
  KeyM: 'marquee',
  KeyL: 'lasso',
  KeyW: 'wand',
  KeyC: 'crop',
  KeyI: 'eyedropper',
  KeyB: 'brush',
  KeyG: 'gradient',
  KeyT: 'text',
};

/** A toolbox slot's name as the tool it holds now (the marquee's shape, the lasso's kind). */
function toolName(tool: CanvasTool, o: SelectionOptions): MessageKey {
  if (tool === 'marquee') return `canvas.tool.marquee.${o.shape}`;
  if (tool === 'lasso') return `canvas.tool.lasso.${o.lasso}`;
  return `canvas.tool.${tool}`;
}

/** Marching ants along the path `d` (document px) over the whole artboard. */
function Ants({
  d,
  width,
  height,
  drawing,
}: {
  d: string;
  width: number;
  height: number;
  drawing?: boolean;
}) {
  return (
    <svg
      class={`selection-ants${drawing ? ' drawing' : ''}`}
      aria-hidden="true"
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
    >
      <path d={d} class="ants-under" />
      <path d={d} class="ants" />
    </svg>
  );
}

/** How far, CSS px, a press may move and still be a click rather than a pan. */
const CLICK_SLOP = 4;

/** How long after a click its double-click may come (ms): the clicks of a double-click select nothing. */
const DOUBLE_CLICK_MS = 700;

/**
 * A click on the canvas selects the layer it lands on, as Photoshop's Move tool does with Auto-Select: the
 * topmost visible layer with a pixel there (the server finds it: layer-at), added to the selection with Shift.
 * Nothing changes where no layer has a pixel. Through select_layers, as a click in the layers pane.
 *
 * A double-click fits the view, and the layer its first click selected was not what the designer meant: the
 * selection (which the model acts on as the current layer) goes back to what it was before that click.
 */
function useSelectAt(artboard: { current: HTMLDivElement | null }) {
  const { studio } = useStudioView();
  // The clicks of the last moments: each one's selection before it, once it has changed it.
  const recent = useRef<{ at: number; cancelled: boolean; before: string[] | null }[]>([]);
  const selectAt = (clientX: number, clientY: number, add: boolean) => {
    const doc = studio.state?.active;
    const board = artboard.current?.getBoundingClientRect();
    if (!doc || !board || !studio.sessionId || board.width === 0) return;
    const x = ((clientX - board.left) / board.width) * doc.width;
    const y = ((clientY - board.top) / board.height) * doc.height;
    if (x < 0 || y < 0 || x >= doc.width || y >= doc.height) return;
    const name = doc.name;
    const click = { at: performance.now(), cancelled: false, before: null as string[] | null };
    recent.current = [...recent.current.filter((c) => click.at - c.at < DOUBLE_CLICK_MS), click];
    void studio.api
      .json<{ layer_id: number | null }>(
        `/v1/sessions/${studio.sessionId}/documents/${encodeURIComponent(name)}/layer-at?x=${x.toFixed(2)}&y=${y.toFixed(2)}`,
      )
      .then(({ layer_id }) => {
        const now = studio.state?.active;
        const layer = now?.name === name ? layerWithId(now.layers, layer_id) : undefined;
        if (click.cancelled || !now || !layer) return;
        // The current layer first: select_layers makes its first name the current layer.
        const selected = selectedRefs(now);
        const names = add ? [...new Set([...selected, refOf(layer)])] : [refOf(layer)];
        if (names.length === selected.length && names.every((n) => selected.includes(n))) return;
        click.before = selected;
        void studio.run([{ name: PANE_TOOLS.selectLayers, arguments: { names }, quiet: true }]);
      })
      .catch(() => undefined);
  };
  /** The double-click's own two clicks (not a click just before them), which select nothing from now on. */
  const cancelClicks = () => {
    const now = performance.now();
    const clicks = recent.current.slice(-2).filter((c) => now - c.at < DOUBLE_CLICK_MS);
    recent.current = [];
    for (const c of clicks) c.cancelled = true;
    return clicks;
  };
  /** The double-click's clicks undone: those still on their way select nothing, the first one's selection is put back. */
  const undoClicks = () => {
    const before = cancelClicks().find((c) => c.before !== null)?.before;
    if (before?.length && studio.state?.active)
      void studio.run([{ name: PANE_TOOLS.selectLayers, arguments: { names: before }, quiet: true }]);
  };
  /**
   * A text layer about to be edited (a type-tool click, a Move-tool double-click) selected, as Photoshop does,
   * whatever the double-click's clicks picked by pixel (a click between the glyphs finds the layer under them).
   */
  const selectInstead = (layer: LayerNode) => {
    cancelClicks();
    void studio.run([{ name: PANE_TOOLS.selectLayers, arguments: { names: [refOf(layer)] }, quiet: true }]);
  };
  return { selectAt, undoClicks, selectInstead };
}

/** The canvas's picture, with the layer tree it was rendered from (see `image` in CanvasPane). */
interface Picture {
  readonly url: string;
  readonly key: string;
  readonly of: string;
  readonly layers: ActiveDocument['layers'];
  readonly state: string;
}

export function CanvasPane() {
  const { studio, t, lang } = useStudioView();
  const doc = studio.state?.active ?? null;
  const viewport = useRef<HTMLDivElement>(null);
  const size = useViewportSize(viewport);
  const [view, setView] = useState<View | null>(null);
  // The canvas's picture, with the layer tree it was rendered from: the outlines and handles are drawn from that
  // tree, so that after a move they go to the new place together with the picture, not a picture load before it.
  const [image, setImage] = useState<Picture | null>(null);
  // Each open document's last picture, by `of`: a tab chosen again shows its document at once (not an empty
  // board until a render comes), as Photoshop's windows keep theirs; the newer render replaces it when it comes.
  const pictures = useRef(new Map<string, Picture>());
  const forgetPictures = (which: (of: string) => boolean) => {
    for (const [of, picture] of [...pictures.current]) {
      if (!which(of)) continue;
      pictures.current.delete(of);
      URL.revokeObjectURL(picture.url);
    }
    // Nor shown any more: a document opened later under the same name and size is not shown these pixels.
    setImage((old) => (old && which(old.of) ? null : old));
  };
  const layerMove = useLayerMove(CLICK_SLOP, image?.key);
  // What a drag or a click on the canvas does, as Photoshop's tools: the Move tool (V), the Rectangular and
  // Elliptical Marquee (M), the Lasso and Polygonal Lasso (L), the Magic Wand (W), Crop (C), the Eyedropper (I) and
  // the Horizontal Type tool (T). Panning stays with space, the middle button, the wheel and two fingers in all.
  const [tool, setTool] = useState<CanvasTool>('move');
  const selecting = useSelectionOptions();
  const { options } = selecting;
  const marquee = useMarquee(CLICK_SLOP, doc, options.shape, options.mode);
  const lasso = useLasso(doc, options.lasso, options.mode, view?.zoom ?? 1, tool === 'lasso');
  const crop = useCrop(CLICK_SLOP, doc, tool === 'crop');
  const typing = useTextTool(doc?.name ?? null);
  // The type tool's options bar: size (document px; null until chosen, then a default for the canvas); new text is
  // set in the foreground colour.
  const [textSize, setTextSize] = useState<number | null>(null);
  const foreground = useForeground(doc);
  const textColor = foreground.color;
  const [textFont, setTextFont] = useState<string | null>(null);
  const [textAlign, setTextAlign] = useState<TextAlign>('left');
  // A box dragged with the type tool: the paragraph text's, as Photoshop's type tool draws one.
  const textBox = useRectDrag(CLICK_SLOP, doc);
  const [gradientOptions, setGradientOptions] = useState<GradientOptions>({
    type: 'linear',
    end: '#ffffff',
    toTransparent: false,
    middle: '#ffffff',
    throughMiddle: false,
    reverse: false,
    dither: true,
    onMask: false,
  });
  const masked = doc ? layerWithId(doc.layers, doc.active_layer_id)?.mask === true : false;
  const gradient = useGradient(CLICK_SLOP, view?.zoom ?? 1, foreground.color, gradientOptions, masked);
  const [brushOptions, setBrushOptions] = useState<BrushOptions>({
    size: 20,
    hardness: 100,
    opacity: 100,
    flow: 100,
    onMask: false,
    pressureSize: true,
    pressureOpacity: false,
  });
  const brush = useBrush(tool === 'brush', view?.zoom ?? 1, foreground.color, brushOptions, masked, (size) =>
    setBrushOptions((o) => ({ ...o, size })),
  );
  const fonts = useFonts(tool === 'text');
  // The eyedropper's last reading: a colour, or null where the canvas is transparent.
  const [picked, setPicked] = useState<{ hex: string | null } | null>(null);
  // A click that only ends the typing (the box was open when it was pressed) starts no new text.
  const typingAtPress = useRef(false);
  // The view's zoom by the keys, as in Photoshop and Figma: Ctrl/⌘ and + or − zoom in or out, 0 fits the window,
  // 1 shows actual pixels. Taken from the browser, whose own page zoom would scale the whole studio.
  const zoomKeys = useRef<{ zoomBy(f: number): void; actual(): void; fit(): void } | null>(null);
  const hasDoc = doc !== null;
  const optionsNow = useRef(options);
  optionsNow.current = options;
  useEffect(() => {
    if (!hasDoc) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || inFormControl(e.target as Element | null)) return;
      const chosen = TOOL_KEYS[e.code];
      if (!chosen) return;
      // Shift with a slot's key changes the tool it holds, as Shift+M and Shift+L do in Photoshop.
      if (e.shiftKey) {
        if (chosen === 'marquee')
          selecting.update({ shape: optionsNow.current.shape === 'rect' ? 'ellipse' : 'rect' });
        else if (chosen === 'lasso')
          selecting.update({ lasso: optionsNow.current.lasso === 'free' ? 'polygon' : 'free' });
        else return;
      }
      setTool(chosen);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [hasDoc]);
  useEffect(() => {
    if (!hasDoc) return;
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || !zoomKeys.current) return;
      const keys = zoomKeys.current;
      const act = ZOOM_KEYS[e.code];
      if (!act) return;
      e.preventDefault();
      if (act === 'in') keys.zoomBy(ZOOM_STEP);
      else if (act === 'out') keys.zoomBy(1 / ZOOM_STEP);
      else if (act === 'fit') keys.fit();
      else keys.actual();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [hasDoc]);
  // The pointers down on the canvas (a mouse, or one or two fingers) where they were last seen.
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  // A press of the left button or one finger that has not moved (yet): lifted so, it was a click.
  const press = useRef<{ id: number; x: number; y: number } | null>(null);
  // Pointers still down after Esc dropped what they were drawing or dragging: until lifted they do nothing (they
  // would otherwise go on to pan the view, or end as a click).
  const spent = useRef(new Set<number>());
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || pointers.current.size === 0) return;
      for (const id of pointers.current.keys()) spent.current.add(id);
      press.current = null;
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  const artboard = useRef<HTMLDivElement>(null);
  const { selectAt, undoClicks, selectInstead } = useSelectAt(artboard);
  const drop = useDropToOpen();
  const mark = usePieceMark();
  const shown = usePieceShown();
  const hand = useSpaceForHand(viewport, doc !== null);

  // Which picture an image is of: while the next one loads the last one stays, but only of this document at
  // this size (another document's, stretched to this one's frame, showed a picture that is not there).
  const of = doc ? `${doc.name}|${doc.width}|${doc.height}` : '';
  // The picture shown: the one loaded last if of this document, else this document's kept one (a tab chosen again).
  const picture = image?.of === of ? image : (pictures.current.get(of) ?? null);

  // Whether the view is still the fitted one (the designer has not zoomed or panned since): only then does a
  // resized window fit the document again. Otherwise their zoom stays, and what was at the centre stays there.
  const fitted = useRef(true);
  const shownFor = useRef({ of: '', w: 0, h: 0 });
  const fitToWindow = useCallback(() => {
    if (!doc || size.w === 0) return;
    fitted.current = true;
    const el = viewport.current;
    setView(fitView(doc.width, doc.height, size.w, size.h, toolboxEdge(el), zoomBarCorner(el)));
  }, [of, size.w, size.h]);
  /** A change of the view the designer made. */
  const move = (change: (v: View) => View) => {
    fitted.current = false;
    setView((v) => v && change(v));
  };

  // Each document's own view, as Photoshop keeps each window's zoom and scroll: a document shown again (its tab
  // chosen) is where the designer left it; one still fitted then, or resized since (another key), is fitted.
  const viewNow = useRef(view);
  viewNow.current = view;
  const views = useRef(new Map<string, { view: View; w: number; h: number }>());
  useEffect(() => {
    const before = shownFor.current;
    if (before.of !== of && before.of) {
      if (!fitted.current && viewNow.current)
        views.current.set(before.of, { view: viewNow.current, ...before });
      else views.current.delete(before.of);
    }
    if (!doc) shownFor.current = { of: '', w: 0, h: 0 };
    if (!doc || size.w === 0) return;
    shownFor.current = { of, w: size.w, h: size.h };
    const kept = before.of !== of ? views.current.get(of) : undefined;
    if (kept) {
      fitted.current = false;
      setView(keepCentre(kept.view, kept, size));
    } else if (before.of !== of || fitted.current) fitToWindow();
    else setView((v) => v && keepCentre(v, before, size));
  }, [of, size.w, size.h]);
  // A document closed (or gone with its session) forgets its view: opened again it is fitted, as a new window.
  const openNames = (studio.state?.documents ?? []).map((d) => d.name);
  const viewsOf = useRef(studio.sessionId);
  useEffect(() => {
    if (viewsOf.current !== studio.sessionId) {
      views.current.clear();
      forgetPictures(() => true);
    }
    viewsOf.current = studio.sessionId;
    const open = new Set(openNames);
    const closed = (key: string) => !open.has(key.split('|').slice(0, -2).join('|'));
    for (const key of [...views.current.keys()]) if (closed(key)) views.current.delete(key);
    forgetPictures(closed);
  }, [JSON.stringify([studio.sessionId, openNames])]);

  // A piece's picture clicked in a garment card: the view fitted to that piece (a zoom of the designer's). Each
  // click once: a canvas shown again later does not jump back to a piece asked for before.
  const lastShown = useRef(shown?.seq ?? 0);
  useEffect(() => {
    if (!shown || shown.seq === lastShown.current) return;
    lastShown.current = shown.seq;
    if (!doc || shown.mark.doc !== doc.name || size.w === 0) return;
    fitted.current = false;
    const el = viewport.current;
    setView(fitRect(shown.mark.bounds, size.w, size.h, toolboxEdge(el), zoomBarCorner(el)));
  }, [shown?.seq]);

  const max = doc && view ? renderSize(doc.width, doc.height, view.zoom, window.devicePixelRatio || 1) : 0;
  // Which state of the document a picture is of; with the render's size, which picture is wanted.
  const stateKey = doc
    ? `${doc.name}|${doc.history.index}|${doc.history.labels.length}|${studio.revision}`
    : '';
  const key = doc ? `${stateKey}|${max}` : '';

  useEffect(() => {
    if (!doc || !studio.sessionId || max === 0) return;
    const kept = pictures.current.get(of);
    if (kept) setImage((old) => (old?.of === of ? old : kept));
    if (kept?.key === key) return;
    // A render no longer wanted (zoomed on past it, another document, a newer step) is not downloaded to the
    // end: a big document's renders are megabytes each, and on a slow line they held up the one wanted.
    const abort = new AbortController();
    const url = `/v1/sessions/${studio.sessionId}/documents/${encodeURIComponent(doc.name)}/render.png?max=${max}`;
    const layers = doc.layers;
    studio.api
      .blob(url, abort.signal)
      .then(({ blob }) => {
        if (abort.signal.aborted) return;
        // The previous image stays until the new one is ready, so the canvas never flashes empty.
        const next = { url: URL.createObjectURL(blob), key, of, layers, state: stateKey };
        const before = pictures.current.get(of);
        pictures.current.set(of, next);
        setImage(next);
        if (before) URL.revokeObjectURL(before.url);
      })
      .catch(() => {
        if (!abort.signal.aborted) reportCanvasFailed(key);
      });
    return () => abort.abort();
  }, [key]);

  // A run waiting for the canvas to show a change (canvas-shown.ts) learns when it does.
  useEffect(() => reportCanvasPicture(key, key === '' ? '' : (image?.key ?? '')), [key, image?.key]);
  useEffect(() => () => reportCanvasPicture('', ''), []);

  // No document (closed, or its session gone): its picture is let go, so that a later document of the same name
  // and size is never shown another's pixels while its own load.
  useEffect(() => {
    if (doc) return;
    forgetPictures(() => true);
    setImage(null);
  }, [doc === null]);

  if (studio.sessionGone) {
    return (
      <div class="canvas-viewport" ref={viewport}>
        <SessionGone />
      </div>
    );
  }
  if (!doc) {
    return (
      <div class={`canvas-viewport${drop.over ? ' dropping' : ''}`} ref={viewport} {...drop.handlers}>
        <EmptyCanvas />
        {drop.sending && <Sending />}
      </div>
    );
  }

  /** Where a pointer is on the document, in document px (beyond its edges too); null before the canvas is laid out. */
  const docPoint = (e: { clientX: number; clientY: number }) => {
    const board = artboard.current?.getBoundingClientRect();
    if (!board || board.width === 0) return null;
    return {
      x: ((e.clientX - board.left) / board.width) * doc.width,
      y: ((e.clientY - board.top) / board.height) * doc.height,
    };
  };
  /** A pointer taken by the browser or spent by Esc: whatever it drew or dragged is dropped, nothing is sent. */
  const cancelPointer = (e: PointerEvent) => {
    const at = docPoint(e);
    if (at) {
      marquee.release(e, at, true);
      lasso.release(e, at, true);
      crop.release(e, at, true);
      textBox.release(e, at, true);
      gradient.release(e, at, true);
      brush.release(e, at, true);
    }
    textBox.setRect(null);
    layerMove.release(e, true);
    press.current = null;
  };
  // The selection as it is now, the bounds as the picture shows them (see `image`).
  const pictured: ActiveDocument = picture ? { ...doc, layers: picture.layers } : doc;
  // Only while the picture is of the current state: the box the handles scale is what the server scales from.
  const handles =
    tool === 'move' && !layerMove.offset && picture?.state === stateKey ? transformable(pictured) : null;
  const cropTool = studio.tools.get(PANE_TOOLS.crop);
  const cropLabel = cropTool ? labelIn(cropTool, lang) : PANE_TOOLS.crop;
  // The size on paper to 0.1 mm, as get_document_info reports it (an A4 page at 300 DPI: 210 × 297 mm).
  const facts = t('status.size', {
    w: doc.width,
    h: doc.height,
    pw: fromPixels(doc.width, doc.resolution, 'mm', 1),
    ph: fromPixels(doc.height, doc.resolution, 'mm', 1),
    dpi: doc.resolution,
    mode: doc.mode,
  });
  const zoomBy = (factor: number) => move((v) => zoomAt(v, factor, size.w / 2, size.h / 2));
  const actual = () => move((v) => zoomAt(v, 1 / v.zoom, size.w / 2, size.h / 2));
  zoomKeys.current = { zoomBy, actual, fit: fitToWindow };

  return (
    <>
      <div
        class={`canvas-viewport${drop.over ? ' dropping' : ''}${tool === 'move' ? '' : ` ${tool}-tool`}`}
        ref={viewport}
        {...drop.handlers}
        // The keys and the pointer pan and zoom; the toolbar below has the same as buttons.
        role="application"
        aria-label={t('canvas.view')}
        aria-describedby="canvas-keys"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: an application role taking the arrow keys and space; focus is how the keyboard reaches it
        tabIndex={0}
        onKeyDown={(e) => {
          // Keys typed in the options bars' fields and lists are theirs (Backspace in the tolerance, the arrows in
          // the font list), not a deletion, fill or nudge.
          if (inFormControl(e.target as Element | null)) return;
          // Alt+Delete (or Alt+Backspace) fills the selection, or the whole current layer without one, with the
          // foreground colour, as Photoshop's Edit › Fill with Foreground Color.
          if ((e.key === 'Delete' || e.key === 'Backspace') && e.altKey && !e.ctrlKey && !e.metaKey) {
            if (!doc || doc.selected_layer_ids.length === 0) return;
            e.preventDefault();
            void studio.run([{ name: PANE_TOOLS.fill, arguments: { color: foreground.color } }]);
            return;
          }
          // As Photoshop: Delete (or Backspace) clears the selected pixels of the current layer when there is a
          // pixel selection (Edit › Clear), and otherwise deletes the selected layers, as its Move tool and the
          // layers pane's Delete.
          if ((e.key === 'Delete' || e.key === 'Backspace') && !e.ctrlKey && !e.metaKey && !e.altKey) {
            if (!doc || doc.selected_layer_ids.length === 0) return;
            e.preventDefault();
            const tool = doc.has_selection ? PANE_TOOLS.clearSelection : PANE_TOOLS.deleteLayer;
            void studio.run([{ name: tool, arguments: {} }]);
            return;
          }
          const arrow = ARROWS[e.key];
          if (!arrow || e.ctrlKey || e.metaKey || e.altKey) return;
          e.preventDefault();
          // As Photoshop's Move tool: the arrows nudge the selected layers (the opposite way to a pan of the
          // view), by a document pixel or ten with Shift; with nothing that can move selected, they pan.
          const nudge = e.shiftKey ? NUDGE_LARGE : 1;
          if (doc && layerMove.nudge(doc, -arrow[0] * nudge, -arrow[1] * nudge)) return;
          const step = e.shiftKey ? PAN_STEP_LARGE : PAN_STEP;
          move((v) => panBy(v, arrow[0] * step, arrow[1] * step));
        }}
        // As in Figma: the wheel and a two-finger scroll pan; with Ctrl/⌘, or a pinch (a wheel with ctrlKey),
        // they zoom about the pointer.
        onWheel={(e) => {
          e.preventDefault();
          const { dx, dy } = wheelPixels(e, size.h);
          if (e.ctrlKey || e.metaKey) {
            const box = e.currentTarget.getBoundingClientRect();
            const px = e.clientX - box.left;
            const py = e.clientY - box.top;
            move((v) => zoomAt(v, wheelZoomFactor(dy), px, py));
          } else if (e.shiftKey && dx === 0) {
            // A mouse wheel with Shift scrolls sideways where the system does not turn it into deltaX itself.
            move((v) => panBy(v, -dy, 0));
          } else {
            move((v) => panBy(v, -dx, -dy));
          }
        }}
        onPointerDown={(e) => {
          // The left button (or a finger), or the middle one, which pans in every design app.
          if (!view || (e.button !== 0 && e.button !== 1)) return;
          if (e.button === 1) e.preventDefault();
          press.current =
            e.button === 0 && pointers.current.size === 0 && !hand.current
              ? { id: e.pointerId, x: e.clientX, y: e.clientY }
              : null;
          const at = docPoint(e);
          typingAtPress.current = typing.edit !== null && typing.edit.doc === doc.name;
          // A touch pans whatever the tool (one finger is how a phone moves about the canvas).
          if (press.current && at && tool === 'marquee' && e.pointerType !== 'touch') marquee.press(e, at);
          else if (press.current && at && tool === 'lasso' && e.pointerType !== 'touch') lasso.press(e, at);
          else if (press.current && at && tool === 'crop' && e.pointerType !== 'touch') crop.press(e, at);
          else if (press.current && at && tool === 'gradient' && e.pointerType !== 'touch')
            gradient.press(e, at);
          else if (press.current && at && tool === 'brush' && e.pointerType !== 'touch') brush.press(e, at);
          else if (
            press.current &&
            at &&
            tool === 'text' &&
            e.pointerType !== 'touch' &&
            !typingAtPress.current
          )
            textBox.press(e, at);
          else if (press.current && at && tool === 'move')
            layerMove.press(e, doc, selectedBounds(pictured), at, view.zoom);
          e.currentTarget.setPointerCapture(e.pointerId);
          pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
        }}
        onPointerMove={(e) => {
          if (tool === 'lasso') {
            const at = docPoint(e);
            if (at) lasso.hover(at);
          }
          const last = pointers.current.get(e.pointerId);
          if (!last) return;
          const now = { x: e.clientX, y: e.clientY };
          pointers.current.set(e.pointerId, now);
          if (spent.current.has(e.pointerId)) return;
          const p = press.current;
          if (p && Math.hypot(now.x - p.x, now.y - p.y) > CLICK_SLOP) press.current = null;
          // Drawing a selection or dragging the selected layers, not the view.
          const at = docPoint(e);
          if (
            at &&
            (marquee.move(e, at) ||
              lasso.move(e, at) ||
              crop.move(e, at) ||
              textBox.move(e, at) ||
              gradient.move(e, at) ||
              brush.move(e, at))
          )
            return;
          if (layerMove.drag(e)) return;
          const other = [...pointers.current].find(([id]) => id !== e.pointerId)?.[1];
          if (!other) {
            move((v) => panBy(v, now.x - last.x, now.y - last.y));
            return;
          }
          // Two fingers: the point between them moves the document with it, their spread zooms it there.
          const box = e.currentTarget.getBoundingClientRect();
          const apart = Math.hypot(last.x - other.x, last.y - other.y);
          const spread = apart > 0 ? Math.hypot(now.x - other.x, now.y - other.y) / apart : 1;
          const mid = { x: (now.x + other.x) / 2 - box.left, y: (now.y + other.y) / 2 - box.top };
          const moved = { x: (now.x - last.x) / 2, y: (now.y - last.y) / 2 };
          move((v) => zoomAt(panBy(v, moved.x, moved.y), spread, mid.x, mid.y));
        }}
        // Lifted, or taken by the browser: the pointer no longer moves the view.
        onPointerUp={(e) => {
          pointers.current.delete(e.pointerId);
          // After Esc, what the drag was doing is already dropped; its hook still hears the pointer go.
          if (spent.current.delete(e.pointerId)) {
            cancelPointer(e);
            return;
          }
          const at = docPoint(e);
          const boxed = at !== null ? textBox.release(e, at) : null;
          if (boxed) textBox.setRect(null);
          if (boxed?.rect && !boxed.cancelled)
            typing.boxAt(doc, boxed.rect, newTextOptions(doc, textFont, textSize, textColor, textAlign));
          const marked =
            boxed?.rect != null ||
            (at !== null && gradient.release(e, at)) ||
            (at !== null && brush.release(e, at)) ||
            (at !== null && (marquee.release(e, at) || lasso.release(e, at) || crop.release(e, at)));
          const moved = marked || layerMove.release(e);
          const clicked = !moved && press.current?.id === e.pointerId;
          if (clicked && tool === 'lasso' && at && e.pointerType !== 'touch') lasso.click(e, at);
          else if (clicked && tool === 'wand' && at && e.pointerType !== 'touch') {
            // As Photoshop's magic wand: the colour there, within the options bar's tolerance, becomes the selection.
            if (at.x >= 0 && at.y >= 0 && at.x < doc.width && at.y < doc.height) {
              const mode = modeOf({ shift: e.shiftKey, alt: e.altKey }, options.mode);
              void studio.run([
                {
                  name: PANE_TOOLS.magicWand,
                  arguments: {
                    x: Math.floor(at.x),
                    y: Math.floor(at.y),
                    ...wandArguments(options),
                    ...modeArgument(mode),
                  },
                },
              ]);
            }
          } else if (clicked && tool === 'eyedropper') {
            // As Photoshop's eyedropper: the canvas's colour there (the visible composite) becomes the foreground
            // colour, which new text and Alt+Delete use.
            if (at && at.x >= 0 && at.y >= 0 && at.x < doc.width && at.y < doc.height)
              void studio.run([
                {
                  name: PANE_TOOLS.pickColor,
                  arguments: { x: Math.floor(at.x), y: Math.floor(at.y) },
                  quiet: true,
                  onResult: (r) => {
                    const hex = typeof r.hex === 'string' ? r.hex : null;
                    setPicked({ hex });
                    if (hex) foreground.set(hex);
                  },
                },
              ]);
          } else if (clicked && tool === 'text') {
            if (at && !typingAtPress.current && e.pointerType !== 'touch') {
              // A text layer clicked is the one edited, and selected, as in Photoshop: the options bar shows it.
              const text = textLayerAt(doc.layers, at);
              if (text && !(doc.selected_layer_ids.length === 1 && doc.selected_layer_ids[0] === text.id))
                selectInstead(text);
              typing.clickAt(doc, at, newTextOptions(doc, textFont, textSize, textColor, textAlign));
            }
          } else if (clicked && tool === 'move') selectAt(e.clientX, e.clientY, e.shiftKey);
          press.current = null;
        }}
        onPointerCancel={(e) => {
          pointers.current.delete(e.pointerId);
          spent.current.delete(e.pointerId);
          cancelPointer(e);
        }}
        onDblClick={(e) => {
          // On a text layer, as in Photoshop, a double-click edits its words (the type tool's box); elsewhere it
          // fits the view.
          const at = docPoint(e);
          // The polygonal lasso closes on a double-click, as in Photoshop.
          if (tool === 'lasso') {
            lasso.close();
            return;
          }
          const text = tool === 'move' && at ? textLayerAt(doc.layers, at) : undefined;
          if (at && text) {
            selectInstead(text);
            typing.clickAt(doc, at, newTextOptions(doc, textFont, textSize, textColor, textAlign));
            return;
          }
          undoClicks();
          fitToWindow();
        }}
      >
        {drop.sending && <Sending />}
        {view && (
          <div
            ref={artboard}
            class={`artboard${picture ? '' : ' loading'}${layerMove.offset ? ' moving-layers' : ''}`}
            style={{
              width: `${doc.width * view.zoom}px`,
              height: `${doc.height * view.zoom}px`,
              transform: `translate(${view.x}px, ${view.y}px)`,
            }}
          >
            {picture ? (
              <img
                src={picture.url}
                alt={t('canvas.image', { name: doc.name })}
                draggable={false}
                class={view.zoom * (window.devicePixelRatio || 1) > 2 ? 'pixelated' : ''}
              />
            ) : (
              <span class="spinner" role="status" aria-label={t('canvas.loading')} />
            )}
            {selectedBounds(pictured)
              .filter((b) => b.outlined || layerMove.offset?.ids.has(b.id))
              .map((b) => (
                // The selected layers' bounds, as a design app outlines what is selected (a background, or a layer
                // as large as the canvas, is not outlined: its box is the canvas's edge).
                <SelectedBox
                  key={b.id}
                  box={b}
                  zoom={view.zoom}
                  offset={layerMove.offset}
                  picture={picture?.url ?? null}
                  doc={doc}
                />
              ))}
            {handles && (
              <TransformHandles
                key={handles.key}
                box={handles.box}
                names={handles.names}
                zoom={view.zoom}
                picture={picture?.url ?? null}
                docSize={{ w: doc.width, h: doc.height }}
                pictureKey={picture?.key}
              />
            )}
            {doc.selection?.outline &&
              !(marquee.path && marquee.replacing) &&
              !(lasso.path && lasso.replacing) && (
                // The pixel selection's edge as Photoshop's marching ants: a dashed line moving along a white one,
                // seen on any picture; a line a screen pixel wide at every zoom.
                <Ants d={doc.selection.outline} width={doc.width} height={doc.height} />
              )}
            {(marquee.path ?? lasso.path) && (
              // The shape being drawn (or on its way to the server), as the ants it will be: in place of the
              // selection, or beside it while adding to it, subtracting from it or intersecting it.
              <Ants d={(marquee.path ?? lasso.path)!} width={doc.width} height={doc.height} drawing />
            )}
            {crop.rect && (
              // The part to keep, the rest of the canvas shaded, as Photoshop's crop tool shows it.
              <>
                <svg
                  class="crop-shade"
                  aria-hidden="true"
                  viewBox={`0 0 ${doc.width} ${doc.height}`}
                  preserveAspectRatio="none"
                >
                  <path d={`M0 0H${doc.width}V${doc.height}H0Z${rectPath(crop.rect)}`} />
                </svg>
                <Ants d={rectPath(crop.rect)} width={doc.width} height={doc.height} drawing />
              </>
            )}
            {crop.pending && crop.rect && (
              <CropHandles
                rect={crop.rect}
                zoom={view.zoom}
                docSize={{ w: doc.width, h: doc.height }}
                onChange={crop.adjust}
              />
            )}
            {crop.pending && crop.rect && (
              <span
                class="crop-actions"
                style={{
                  left: `${(crop.rect.x + crop.rect.w) * view.zoom}px`,
                  top: `${(crop.rect.y + crop.rect.h) * view.zoom}px`,
                }}
                onPointerDown={(e) => e.stopPropagation()}
              >
                <span class="crop-size">{`${crop.rect.w} × ${crop.rect.h}`}</span>
                <button type="button" class="text-button primary" onClick={crop.commit}>
                  {cropLabel}
                </button>
                <button type="button" class="text-button" onClick={crop.cancel}>
                  {t('canvas.cropCancel')}
                </button>
              </span>
            )}
            {brush.path && (
              // The stroke as it is drawn, in the foreground colour at the brush's size and opacity; a pen's
              // segments each as wide as its pressure there (the group's opacity laid once over their overlaps).
              <DocOverlay doc={doc} class="brush-path">
                {brushOptions.pressureSize && brush.path.some((p) => p.pressure !== undefined) ? (
                  <g opacity={brushOptions.opacity / 100} stroke={foreground.color} stroke-linecap="round">
                    {brush.path.map((p, i) => {
                      const q = brush.path![Math.max(0, i - 1)]!;
                      const width = (brushOptions.size * ((p.pressure ?? 1) + (q.pressure ?? 1))) / 2;
                      return <line key={i} x1={q.x} y1={q.y} x2={p.x} y2={p.y} stroke-width={width} />;
                    })}
                  </g>
                ) : (
                  <polyline
                    points={brush.path.map((p) => `${p.x},${p.y}`).join(' ')}
                    stroke={foreground.color}
                    stroke-width={brushOptions.size}
                    stroke-opacity={brushOptions.opacity / 100}
                    fill="none"
                    stroke-linecap="round"
                    stroke-linejoin="round"
                  />
                )}
              </DocOverlay>
            )}
            {gradient.line && (
              // The gradient's line being dragged, from its start to its end, as Photoshop draws it.
              <DocOverlay doc={doc} class="gradient-line">
                <line
                  x1={gradient.line.from.x}
                  y1={gradient.line.from.y}
                  x2={gradient.line.to.x}
                  y2={gradient.line.to.y}
                  vector-effect="non-scaling-stroke"
                />
                <circle cx={gradient.line.from.x} cy={gradient.line.from.y} r={3 / view.zoom} />
              </DocOverlay>
            )}
            {textBox.rect && (
              // The paragraph text's box being dragged, as Photoshop's type tool draws it.
              <span
                class="text-box-drag"
                aria-hidden="true"
                style={{
                  left: `${textBox.rect.x * view.zoom}px`,
                  top: `${textBox.rect.y * view.zoom}px`,
                  width: `${textBox.rect.w * view.zoom}px`,
                  height: `${textBox.rect.h * view.zoom}px`,
                }}
              />
            )}
            {typing.edit && typing.edit.doc === doc.name && (
              <TextEditor
                key={`${typing.edit.x},${typing.edit.y},${typing.edit.layer?.id ?? 'new'}`}
                edit={typing.edit}
                zoom={view.zoom}
                field={typing.field}
                onCommit={(text, box) => typing.edit && typing.commit(typing.edit, text, box)}
                onCancel={typing.cancel}
              />
            )}
            {mark && mark.doc === doc.name && (
              // The piece pointed at in a garment card, outlined where it lies.
              <span
                class="piece-mark"
                aria-hidden="true"
                data-piece={mark.name}
                style={{
                  left: `${mark.bounds.x * view.zoom}px`,
                  top: `${mark.bounds.y * view.zoom}px`,
                  width: `${mark.bounds.w * view.zoom}px`,
                  height: `${mark.bounds.h * view.zoom}px`,
                }}
              />
            )}
          </div>
        )}
        <p id="canvas-keys" class="visually-hidden">
          {t('canvas.keys')}
        </p>
        <div
          class="canvas-toolbox"
          role="toolbar"
          aria-label={t('canvas.tools')}
          onPointerDown={(e) => e.stopPropagation()}
        >
          {CANVAS_TOOLS.map(({ id, key }) => (
            <button
              key={id}
              type="button"
              class={`icon-button tool-${id}`}
              aria-pressed={tool === id}
              aria-label={t(toolName(id, options))}
              title={`${t(toolName(id, options))} (${key})`}
              onClick={() => setTool(id)}
            >
              <ToolIcon tool={id} options={options} />
            </button>
          ))}
          <input
            type="color"
            class="foreground-swatch"
            aria-label={t('canvas.foreground')}
            title={t('canvas.foreground')}
            value={foreground.color}
            onInput={(e) => foreground.preview((e.currentTarget as HTMLInputElement).value)}
            onChange={(e) => foreground.set((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {(tool === 'marquee' || tool === 'lasso' || tool === 'wand') && (
          <SelectionOptionsBar tool={tool} options={options} update={selecting.update} />
        )}
        {tool === 'eyedropper' && (
          <div class="tool-options" role="status" onPointerDown={(e) => e.stopPropagation()}>
            {picked === null ? (
              t('canvas.pickHint')
            ) : picked.hex ? (
              <>
                <span class="picked-swatch" style={{ background: picked.hex }} />
                <span class="picked-hex">{picked.hex}</span>
              </>
            ) : (
              t('canvas.pickedTransparent')
            )}
          </div>
        )}
        {tool === 'brush' && (
          <BrushOptionsBar
            options={brushOptions}
            masked={masked}
            update={(change) => setBrushOptions((o) => ({ ...o, ...change }))}
          />
        )}
        {tool === 'gradient' && (
          <GradientOptionsBar
            start={foreground.color}
            masked={masked}
            options={gradientOptions}
            update={(change) => setGradientOptions((o) => ({ ...o, ...change }))}
          />
        )}
        {tool === 'text' && (
          <TypeOptionsBar
            doc={doc}
            typing={typing}
            fonts={fonts}
            font={textFont}
            onFont={setTextFont}
            size={textSize}
            onSize={setTextSize}
            align={textAlign}
            onAlign={setTextAlign}
            foreground={foreground}
          />
        )}
        <div class="canvas-tools" onPointerDown={(e) => e.stopPropagation()}>
          <button
            type="button"
            class="icon-button"
            aria-label={t('canvas.zoomOut')}
            onClick={() => zoomBy(1 / ZOOM_STEP)}
          >
            −
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label={t('canvas.zoomIn')}
            onClick={() => zoomBy(ZOOM_STEP)}
          >
            +
          </button>
          <button type="button" class="text-button" onClick={fitToWindow}>
            {t('canvas.fit')}
          </button>
          <button type="button" class="text-button" onClick={actual}>
            {t('canvas.actual')}
          </button>
        </div>
      </div>
      <footer class="status-bar" aria-live="polite">
        {/* In a narrow pane the name (shown in its tab too) gives way first, so the size and mode stay readable. */}
        <span class="status-doc" title={`${doc.name} · ${facts}`}>
          <span class="status-name">{doc.name}</span>
          <span class="status-sep" aria-hidden="true">
            ·
          </span>
          <span class="status-facts">{facts}</span>
        </span>
        {view && (
          <span class="status-zoom">{t('status.zoom', { zoom: Math.round(view.zoom * 1000) / 10 })}</span>
        )}
        <span class={`status-busy${studio.busy ? ' busy' : ''}`}>
          {studio.uploading ? t('status.uploading') : studio.busy ? t('status.busy') : t('status.ready')}
        </span>
      </footer>
    </>
  );
}
