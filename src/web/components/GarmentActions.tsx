/**
 * The garment flow's decisions in the chat: after a preview, 确认套图 (the model is told; without a model the
 * pieces table below applies phase 2 and verifies) or 重新生成; after verification, the score and suggestions.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { RegistryTool } from '../api/types.js';
import { useStudioView } from '../context.js';
import { type EnumOption, type FieldKind, fieldKind } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { useSharedBlobUrl } from '../state/blob-url.js';
import { canvasCaughtUp } from '../state/canvas-shown.js';
import type { CallItem } from '../state/feed.js';
import { layerWithRef, thumbnailUrl } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { clearMark, type PieceMark, pointsAt, showPiece } from '../state/piece-mark.js';
import { withToolLabels } from '../state/tool-names.js';
import { pickerColor } from './fields.js';

export const {
  garmentIdentify: IDENTIFY_TOOL,
  confirmParts: CONFIRM_TOOL,
  garmentPreview: PREVIEW_TOOL,
  garmentApply: APPLY_TOOL,
  garmentVerify: VERIFY_TOOL,
} = PANE_TOOLS;
const SWITCH_TOOL = PANE_TOOLS.switchDocument;

/**
 * The document a garment card's result is about. Its buttons act on that document, not on whichever is active
 * now: the garment tools work on the active document, and another one's layers often share the card's piece
 * names (图层 1 …), so an answer given on an older card went to the wrong garment. `activate` brings the card's
 * document to the front first (a 切换文档 card shows it) and says whether it could.
 */
function useCardDocument(result: Readonly<Record<string, unknown>> | undefined) {
  const { studio } = useStudioView();
  const name = typeof result?.document === 'string' ? result.document : null;
  const docs = studio.state?.documents ?? [];
  const open = name === null || studio.state === null || docs.some((d) => d.name === name);
  const active = name === null || docs.find((d) => d.active)?.name === name;
  // The parameter of switch_document that names the document, whatever it is called.
  const param = Object.keys(studio.tools.get(SWITCH_TOOL)?.parameters.properties ?? {})[0];
  const activate = async (): Promise<boolean> =>
    active ||
    (name !== null &&
      param !== undefined &&
      (await studio.run([{ name: SWITCH_TOOL, arguments: { [param]: name } }])));
  return { name, open, activate };
}

type PartReading = { readonly part?: string; readonly part_label: string; readonly confidence: number };

/**
 * A garment part's name in the UI's language: the server reports parts in Chinese (`part_label`); in English
 * the registry's English name of the part (by its key, or by its Chinese name where no key comes with it).
 */
function usePartName(): (part: string | undefined, chinese: string) => string {
  const { studio, lang } = useStudioView();
  const english = new Map<string, string>();
  for (const p of studio.registry?.parts ?? []) english.set(p.id, p.labelEn).set(p.label, p.labelEn);
  return (part, chinese) =>
    lang === 'en'
      ? ((part !== undefined ? english.get(part) : undefined) ?? english.get(chinese) ?? chinese)
      : chinese;
}

/** A part with the identification's odds for it, e.g. "后片 41%". */
const withOdds = (label: string, confidence: number) => `${label} ${Math.round(confidence * 100)}%`;

/**
 * What else a piece in doubt may be, e.g. "后片 41% / 袖口": the second part's odds are the piece's own reading,
 * not the garment assignment's share the first one gives, so they are not shown beside it.
 */
const alternativesText = (
  alternatives: readonly PartReading[],
  partName: (part: string | undefined, chinese: string) => string,
) =>
  alternatives
    .map((a, k) => {
      const label = partName(a.part, a.part_label);
      return k === 0 ? withOdds(label, a.confidence) : label;
    })
    .join(' / ');

interface PieceRow {
  name: string;
  /** The part as identified (a key: front, back, left_sleeve…) and its Chinese name. */
  identified: string;
  identifiedLabel: string;
  /** The part chosen in the table: the identified one until the designer picks another. */
  part: string;
  confirmed: boolean;
  /** The other parts the identification hesitated over (shown as e.g. "后片 41%"); empty when sure. */
  doubt: readonly PartReading[];
  /** How the marker lays it (degrees clockwise from upright on the garment) as identified, and as chosen. */
  identifiedTurn: number;
  turn: number;
  /**
   * How far askew the marker lays it beside its turn (degrees clockwise, 0 along the canvas), as identified and
   * as typed (a string while it is being typed: "-" or "" are on the way to a number).
   */
  identifiedTilt: number;
  tilt: string;
  /** On a graded marker, its size (1 the smallest). */
  size: number | null;
  /** Where it lies on its document (px): its thumbnail is that part of the marker. */
  bounds: PieceBounds;
  /** The type and colour the preview proposed, and as chosen in the table. */
  proposedType: string;
  proposedColor: string;
  type: string;
  color: string;
}

/**
 * The types and colours the designer set in a pieces table, by piece, kept for the table of the preview their
 * "preview again" asked for (a part, turn or skew changed): that table starts from the new proposals, and an
 * edit made before must not be silently dropped there. By session and marker; forgotten once applied.
 */
const editedTypes = new Map<string, ReadonlyMap<string, { type: string; color: string }>>();

interface PieceBounds {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The side of a piece's thumbnail, CSS px, and the size of the marker's render the thumbnails are cut from. */
const THUMB = 34;
const THUMB_RENDER = 1024;

/**
 * The marker `name` (a document open in the session), rendered once for a table or a card: each piece shown cut
 * from it, so that a piece named 图层 12 is seen to be the collar without looking for it on the canvas. Not while
 * the marker is the document shown and each of `pieces` is a layer with a thumbnail of its own (PieceThumb shows
 * that then); a piece renamed since it was identified is cut from the render still.
 */
function useMarkerPicture(name: string | null, pieces: readonly string[]) {
  const { studio } = useStudioView();
  const active = studio.state?.active;
  const ownPictures =
    active?.name === name && pieces.every((p) => layerWithRef(active.layers, p)?.thumbnail !== undefined);
  const doc = ownPictures ? null : (studio.state?.documents.find((d) => d.name === name) ?? null);
  // The cards showing one document share its picture.
  const url =
    doc && studio.sessionId
      ? `/v1/sessions/${studio.sessionId}/documents/${encodeURIComponent(doc.name)}/render.png?max=${THUMB_RENDER}`
      : null;
  const image = useSharedBlobUrl(studio.api, url);
  return image && doc ? { image, width: doc.width, height: doc.height } : null;
}

/**
 * A piece's picture: a button that shows the piece on the canvas (the view fitted to it) when the piece's
 * document is known, so a small piece of a large marker is found and seen close up. While its document is the
 * one shown, the picture is its layer's thumbnail (its own pixels on the checkerboard: no neighbour inside its
 * bounds, a light piece's edge against the squares); otherwise the piece's bounds cut from the marker's render.
 */
function PieceThumb(props: { piece: PieceMark; marker: ReturnType<typeof useMarkerPicture> }) {
  const { studio, t } = useStudioView();
  const { piece, marker } = props;
  const b = piece.bounds;
  const s = THUMB / Math.max(1, b.w, b.h);
  const active = studio.state?.active;
  const shows = active?.name === piece.doc;
  const layer = shows && active ? layerWithRef(active.layers, piece.name) : undefined;
  const layerUrl =
    layer && studio.sessionId ? thumbnailUrl(studio.sessionId, piece.doc, layer, 2 * THUMB) : null;
  const layerImage = useSharedBlobUrl(studio.api, layerUrl);
  return (
    <button
      type="button"
      class={`piece-thumb${layerUrl ? ' layer-picture' : ''}`}
      aria-label={t('garment.showPiece', { name: piece.name })}
      title={t('garment.showPiece', { name: piece.name })}
      disabled={!shows}
      onClick={() => showPiece(piece)}
    >
      {layerUrl ? (
        layerImage && <img class="piece-layer" src={layerImage} alt="" draggable={false} />
      ) : marker ? (
        <span
          style={{
            width: `${Math.max(1, Math.round(b.w * s))}px`,
            height: `${Math.max(1, Math.round(b.h * s))}px`,
            backgroundImage: `url(${marker.image})`,
            backgroundSize: `${marker.width * s}px ${marker.height * s}px`,
            backgroundPosition: `${-b.x * s}px ${-b.y * s}px`,
          }}
        />
      ) : null}
    </button>
  );
}

/** One column of a tool's `pieces` table (type in the apply tool, part and tilt in the confirm tool). */
function pieceColumn(tool: RegistryTool | undefined, column: string): FieldKind | undefined {
  const pieces = tool?.parameters.properties.pieces;
  if (!pieces) return undefined;
  const kind: FieldKind = fieldKind(pieces, tool?.limits.pieces);
  return kind.kind === 'table' ? kind.columns.find((c) => c.name === column)?.field : undefined;
}

function pieceColumnOptions(tool: RegistryTool | undefined, column: string) {
  const field = pieceColumn(tool, column);
  return field?.kind === 'enum' ? field.options : [];
}

/** A tilt as typed, when it is one the tool takes (within the column's range): else null. */
function tiltValue(typed: string, range: FieldKind | undefined): number | null {
  if (range?.kind !== 'number' || typed.trim() === '') return null;
  const v = Number(typed);
  if (!Number.isFinite(v) || v < (range.min ?? -Infinity) || v > (range.max ?? Infinity)) return null;
  return Math.round(v * 10) / 10;
}

const NAME_ORDER = new Intl.Collator('zh', { numeric: true });

/**
 * The pieces as a designer reads them: by part in the order the tool lists its parts (front, back, sleeves…),
 * then by layer name with numbers in number order. A marker's layers stand in no useful order.
 */
function readingOrder<P extends { part: string; name: string }>(
  pieces: readonly P[],
  parts: readonly { value: string }[],
): P[] {
  const rank = (p: P) => {
    const i = parts.findIndex((o) => o.value === p.part);
    return i < 0 ? parts.length : i;
  };
  return [...pieces].sort((a, b) => rank(a) - rank(b) || NAME_ORDER.compare(a.name, b.name));
}

function OptionSelect(props: {
  label: string;
  value: string;
  options: readonly (Pick<EnumOption, 'value' | 'label'> & { unavailable?: string })[];
  disabled?: boolean;
  class?: string;
  onChange(value: string): void;
}) {
  return (
    <select
      class={props.class}
      aria-label={props.label}
      value={props.value}
      disabled={props.disabled}
      onChange={(e) => props.onChange(e.currentTarget.value)}
    >
      {props.options.map((o) => (
        // What the photo cannot give is shown (the designer sees it exists) but not offered; why is said under
        // the table (an option's own text would widen every picker to its length).
        <option key={o.value} value={o.value} disabled={o.unavailable !== undefined} title={o.unavailable}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/**
 * The pieces with their parts, types and colours, applied (then verified) in one go. A part picked other than
 * the identified one is confirmed (confirm_piece_parts, the other pieces decided around it) and previewed
 * again before anything is applied: the print's placement follows the parts.
 */
function PiecesTable({ onDone }: { onDone(): void }) {
  const { studio, t, lang } = useStudioView();
  const partName = usePartName();
  const unavailable = new Map(
    (studio.state?.garment.unavailable_types ?? []).map((u) => [u.type, lang === 'zh' ? u.reason : null]),
  );
  const options = pieceColumnOptions(studio.tools.get(APPLY_TOOL), 'type').map((o) => {
    const why = unavailable.get(o.value);
    return {
      ...o,
      label: labelIn(o, lang),
      ...(why !== undefined ? { unavailable: why ?? t('garment.typeUnavailable') } : {}),
    };
  });
  const parts = pieceColumnOptions(studio.tools.get(CONFIRM_TOOL), 'part').map((o) => ({
    ...o,
    label: partName(o.value, o.label),
  }));
  // How a piece may lie on the marker, as confirm_piece_parts takes it.
  const turns = (studio.registry?.turns ?? []).map((v) => ({
    value: String(v),
    label: t(`garment.turn${v}`),
  }));
  // And how far askew, within the range the tool takes (no field when the tool takes none).
  const tiltRange = pieceColumn(studio.tools.get(CONFIRM_TOOL), 'tilt');
  const markerDoc = studio.state?.garment.document ?? null;
  const editsKey = `${studio.sessionId}|${markerDoc}`;
  const [rows, setRows] = useState<PieceRow[]>(() =>
    readingOrder(studio.state?.garment.pieces ?? [], parts).map((p) => ({
      name: p.name,
      identified: p.part,
      identifiedLabel: p.part_label,
      part: p.part,
      confirmed: p.confirmed,
      doubt: p.alternatives,
      identifiedTurn: p.turn,
      turn: p.turn,
      identifiedTilt: p.tilt,
      tilt: String(p.tilt),
      size: p.size,
      bounds: p.bounds,
      proposedType: p.type ?? options[0]?.value ?? '',
      proposedColor: p.color ?? '',
      type: editedTypes.get(editsKey)?.get(p.name)?.type ?? p.type ?? options[0]?.value ?? '',
      color: editedTypes.get(editsKey)?.get(p.name)?.color ?? p.color ?? '',
    })),
  );
  const [running, setRunning] = useState(false);
  const marker = useMarkerPicture(
    markerDoc,
    rows.map((r) => r.name),
  );
  useEffect(() => clearMark, []);
  if (rows.length === 0) return <p class="muted">{t('garment.noPieces')}</p>;
  const set = (i: number, change: Partial<PieceRow>) =>
    setRows((old) => old.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const returned = (r: PieceRow) => r.turn !== r.identifiedTurn;
  const tilted = (r: PieceRow) => {
    const v = tiltValue(r.tilt, tiltRange);
    return v !== null && v !== r.identifiedTilt;
  };
  const badTilt = rows.some((r) => tiltRange && tiltValue(r.tilt, tiltRange) === null);
  const repicked = rows.filter((r) => r.part !== r.identified || returned(r) || tilted(r));
  // Each step runs once the one before it succeeded (a batch of calls runs on past a failure), and the table
  // stays after a failure, with what was picked in it, to correct and send again.
  const confirmParts = async () => {
    setRunning(true);
    try {
      const pieces = repicked.map((r) => ({
        name: r.name,
        part: r.part,
        ...(returned(r) ? { turn: r.turn } : {}),
        ...(tilted(r) ? { tilt: tiltValue(r.tilt, tiltRange) } : {}),
      }));
      if (!(await studio.run([{ name: CONFIRM_TOOL, arguments: { pieces } }]))) return;
      const edited = rows.filter((r) => r.type !== r.proposedType || r.color !== r.proposedColor);
      editedTypes.set(editsKey, new Map(edited.map((r) => [r.name, { type: r.type, color: r.color }])));
      await studio.run([{ name: PREVIEW_TOOL, arguments: {} }]);
      // The new preview comes with its own decision buttons.
      onDone();
    } finally {
      setRunning(false);
    }
  };
  const submit = async () => {
    setRunning(true);
    try {
      const pieces = rows.map((r) => ({
        name: r.name,
        type: r.type,
        ...(r.color ? { color: r.color } : {}),
      }));
      if (!(await studio.run([{ name: APPLY_TOOL, arguments: { pieces } }]))) return;
      editedTypes.delete(editsKey);
      // The applied print on the canvas before verify takes the session for seconds (canvas-shown.ts).
      await canvasCaughtUp();
      await studio.run([{ name: VERIFY_TOOL, arguments: {} }]);
      onDone();
    } finally {
      setRunning(false);
    }
  };
  // Opened under the preview, below what the feed shows: brought into view, with its apply button. On a phone,
  // where the page scrolls through the stacked panes, the whole conversation pane first, so the toolbox's line
  // under the feed (folded for the table, with its way back) shows too, not only the rows down to the page's fold.
  const table = useRef<HTMLDivElement>(null);
  useEffect(() => {
    table.current?.closest('.chat-pane')?.scrollIntoView({ block: 'end' });
    const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
    table.current?.scrollIntoView({ block: 'nearest', behavior: still ? 'auto' : 'smooth' });
  }, []);
  return (
    <>
      <div class="pieces" ref={table}>
        <table aria-label={t('garment.piece')}>
          <thead>
            <tr>
              <th>{t('garment.piece')}</th>
              <th>{t('garment.part')}</th>
              <th>
                {t('garment.type')} / {t('garment.color')}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => {
              const piece = markerDoc ? { doc: markerDoc, name: row.name, bounds: row.bounds } : null;
              return (
                <tr key={row.name} {...pointsAt(piece)}>
                  <td class="piece-name">
                    {piece && <PieceThumb piece={piece} marker={marker} />}
                    {row.name}
                    {row.size !== null && (
                      <span class="piece-size">{t('garment.size', { size: row.size })}</span>
                    )}
                  </td>
                  <td class="pick-cell">
                    <div class="pick-line">
                      {parts.length ? (
                        <OptionSelect
                          class="part-pick"
                          label={`${t('garment.part')} ${row.name}`}
                          value={row.part}
                          options={parts}
                          disabled={running}
                          onChange={(part) => set(i, { part })}
                        />
                      ) : (
                        partName(row.identified, row.identifiedLabel)
                      )}
                      {turns.length > 0 && (
                        <OptionSelect
                          class="turn-pick"
                          label={`${t('garment.turn')} ${row.name}`}
                          value={String(row.turn)}
                          options={turns}
                          disabled={running}
                          onChange={(turn) => set(i, { turn: Number(turn) })}
                        />
                      )}
                      {tiltRange?.kind === 'number' && (
                        <label class="tilt-field" title={t('garment.tiltHint')}>
                          {t('garment.tiltShort')}
                          <input
                            type="number"
                            class="tilt-pick"
                            aria-label={`${t('garment.tilt')} ${row.name}`}
                            aria-invalid={tiltValue(row.tilt, tiltRange) === null}
                            min={tiltRange.min}
                            max={tiltRange.max}
                            step={0.5}
                            value={row.tilt}
                            disabled={running}
                            onInput={(e) => set(i, { tilt: e.currentTarget.value })}
                          />
                          °
                        </label>
                      )}
                    </div>
                    {row.part !== row.identified ? (
                      <span class="repicked">
                        {t('garment.was', { part: partName(row.identified, row.identifiedLabel) })}
                      </span>
                    ) : row.confirmed ? (
                      <span class="confirmed">{t('garment.confirmed')}</span>
                    ) : (
                      row.doubt.length > 0 && (
                        <span class="doubt" title={t('garment.doubtHint')}>
                          {t('garment.maybe', { part: alternativesText(row.doubt, partName) })}
                        </span>
                      )
                    )}
                  </td>
                  <td class="type-cell">
                    <OptionSelect
                      class="type-pick"
                      label={`${t('garment.type')} ${row.name}`}
                      value={row.type}
                      options={options}
                      onChange={(type) => set(i, { type })}
                    />
                    <div class="color-field compact">
                      <input
                        type="color"
                        aria-label={`${t('garment.color')} ${row.name}`}
                        value={pickerColor(row.color)}
                        onInput={(e) => set(i, { color: e.currentTarget.value })}
                      />
                      <code>{row.color || '—'}</code>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {repicked.length > 0 ? (
          <button type="button" class="primary" disabled={running || badTilt} onClick={confirmParts}>
            {running ? t('palette.running') : t('garment.confirmParts', { count: repicked.length })}
          </button>
        ) : (
          <button type="button" class="primary" disabled={running || badTilt} onClick={submit}>
            {running ? t('palette.running') : t('garment.apply')}
          </button>
        )}
      </div>
      {/* Under the button, outside what is scrolled into view: on a phone the rows keep the room. */}
      {options.some((o) => o.unavailable) && (
        <p class="garment-note muted types-unavailable">
          {[...new Set(options.flatMap((o) => (o.unavailable ? [o.unavailable] : [])))]
            .map((why) =>
              t('garment.typeNotOffered', {
                types: options
                  .filter((o) => o.unavailable === why)
                  .map((o) => `“${o.label}”`)
                  .join(lang === 'zh' ? '、' : ', '),
                why,
              }),
            )
            .join(lang === 'zh' ? '；' : '; ')}
        </p>
      )}
    </>
  );
}

/**
 * Told, by a preview card's key, when its pieces table opens and when it goes: the chat pane gives the
 * conversation the room while the newest card's table is open, as it does while pieces are in doubt.
 */
export const PiecesTableOpen = createContext<(key: string, open: boolean) => void>(() => {});

export function PreviewActions({ call }: { call: CallItem }) {
  const { studio, t } = useStudioView();
  const [confirming, setConfirming] = useState(false);
  const [applied, setApplied] = useState(false);
  const doc = useCardDocument(call.result);
  // The snapshot the card first showed with may predate its own preview when the card came while the preview's
  // run was going (the snapshot is fetched again once it ends): only a later one says what became of the
  // preview. A card shown outside a run (a reload) is shown with a snapshot newer than its preview.
  const shownWith = useRef(studio.state);
  const shownInRun = useRef(studio.busy);
  const current = !shownInRun.current || studio.state !== shownWith.current;
  const withModel = studio.model.configured;
  const garment = studio.state?.garment;
  // The pieces were identified again since, in this document or another: what this preview showed is no longer
  // what would be applied (the session keeps one identification and one preview).
  const outdated =
    doc.name !== null &&
    garment !== undefined &&
    (garment.document !== doc.name || (!garment.previewed && current));
  // Applied since, whoever asked (a model often applies and verifies without waiting for the button): there is
  // nothing left to confirm, and confirming would apply it again.
  const appliedSince = !outdated && current && garment?.document === doc.name && garment.preview_applied;
  const tableOpen = confirming && !withModel && !applied && !appliedSince && doc.open && !outdated;
  const report = useContext(PiecesTableOpen);
  useEffect(() => {
    report(call.key, tableOpen);
    return () => report(call.key, false);
  }, [report, call.key, tableOpen]);
  if (!doc.open) return <p class="garment-note muted">{t('garment.docClosed', { doc: doc.name ?? '' })}</p>;
  const regenerate = (
    <button
      type="button"
      disabled={studio.busy}
      onClick={async () => {
        if (!(await doc.activate())) return;
        void (withModel
          ? studio.chat(t('garment.regenerate'))
          : studio.run([{ name: call.name, arguments: {} }]));
      }}
    >
      {t('garment.regenerate')}
    </button>
  );
  if (appliedSince) {
    return (
      <div class="garment-actions">
        <p class="garment-note muted">{t('garment.previewApplied')}</p>
        <div class="button-row">{regenerate}</div>
      </div>
    );
  }
  if (applied) return null;
  if (outdated) {
    return (
      <div class="garment-actions">
        <p class="garment-note">{t('garment.outdated', { doc: doc.name ?? '' })}</p>
        <div class="button-row">
          <button
            type="button"
            disabled={studio.busy}
            onClick={async () => {
              if (!(await doc.activate())) return;
              if (await studio.run([{ name: IDENTIFY_TOOL, arguments: {} }])) {
                await studio.run([{ name: PREVIEW_TOOL, arguments: {} }]);
              }
            }}
          >
            {t('garment.redo')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div class="garment-actions">
      <div class="button-row">
        <button
          type="button"
          class="primary"
          disabled={studio.busy}
          onClick={async () => {
            if (!(await doc.activate())) return;
            if (!withModel) return setConfirming(true);
            // The model applies and verifies: the decision is made, the buttons go — back again when the model
            // service failed before answering (the message returns to the box; nothing was applied).
            setApplied(true);
            void studio.chat(t('garment.confirm')).then((answered) => answered || setApplied(false));
          }}
        >
          {t('garment.confirm')}
        </button>
        {regenerate}
      </div>
      {confirming && !withModel && <PiecesTable onDone={() => setApplied(true)} />}
    </div>
  );
}

export function VerifyReport({ result }: { result: Readonly<Record<string, unknown>> }) {
  const { studio, t, lang } = useStudioView();
  const score = typeof result.score === 'number' ? result.score : null;
  const suggestions = Array.isArray(result.suggestions) ? (result.suggestions as string[]) : [];
  const measures = Array.isArray(result.measures)
    ? (result.measures as { measure: string; label?: string; label_en?: string; score?: number }[])
    : [];
  if (score === null) return null;
  const tone = score >= 8 ? 'good' : score >= 5 ? 'fair' : 'poor';
  return (
    <div class="verify">
      <div class="verify-score">
        <div class={`score-badge ${tone}`} role="img" aria-label={`${t('garment.score')} ${score} / 10`}>
          <strong>{score}</strong>
          <span>/ 10</span>
        </div>
        {measures.length > 0 && (
          <ul class="measures">
            {measures.map((m) => (
              <li key={m.measure}>
                <span>{(lang === 'en' ? m.label_en : undefined) ?? m.label ?? m.measure}</span>
                {/* Each measure scores 0..1 (1 = as the photo). */}
                {typeof m.score === 'number' && (
                  <>
                    <meter min={0} max={1} low={0.5} high={0.8} optimum={1} value={m.score} />
                    <b>{Math.round(m.score * 100)}%</b>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      {/* The suggestions are sentences: the card's whole width, not the column beside the badge. */}
      <h5>{t('garment.suggestions')}</h5>
      {suggestions.length === 0 ? (
        <p class="muted">{t('garment.noSuggestions')}</p>
      ) : (
        <ul class="suggestions">
          {suggestions.map((s) => (
            <li key={s}>{withToolLabels(s, studio.tools, lang)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A piece as identify_pieces reports it, with the parts it may be instead when it is in doubt. */
interface ReportedPiece {
  name: string;
  part: string;
  part_label: string;
  confidence: number;
  alternatives?: { part: string; part_label: string; confidence: number }[];
  /** The other layers cut from the same outline: the answer for this layer decides theirs. */
  same_outline?: string[];
  /** Where it lies on the document (px), as the tools report bounds. */
  bounds?: { left: number; top: number; width: number; height: number };
}

/**
 * The pieces an identify or confirm result still asks about, in the tool's order (`ask_order`): the first answers
 * help most, since every answer decides the other pieces again, and one layer stands for those cut from the same
 * outline. None when the result does not ask.
 */
export function openDoubts(result: Readonly<Record<string, unknown>>): ReportedPiece[] {
  if (result.needs_confirmation !== true || !Array.isArray(result.pieces)) return [];
  const order = Array.isArray(result.ask_order) ? (result.ask_order as string[]) : null;
  return (result.pieces as ReportedPiece[])
    .filter((p) => p.alternatives?.length && (!order || order.includes(p.name)))
    .sort((a, b) => (order ? order.indexOf(a.name) - order.indexOf(b.name) : 0));
}

/**
 * Under an identification whose parts are in doubt: which pieces, what else each may be, and a button for each
 * answer (the part read and the one or two it may be instead). Without a model the answer is recorded at once
 * (confirm_piece_parts); with one it is said in the chat, and the model records it and goes on (the result's own
 * `confirmation` is written for a model). Each piece's last answer stays pressed; another click corrects it (a
 * slip, or a call that failed). When no part offered is right, a list of the other parts answers the same way.
 */
export function DoubtNote({ result }: { result: Readonly<Record<string, unknown>> }) {
  const { studio, t } = useStudioView();
  const partName = usePartName();
  const doc = useCardDocument(result);
  // Each piece's last answer, by piece name: each stays pressed while others are answered.
  const [answered, setAnswered] = useState<Readonly<Record<string, string>>>({});
  const chosen = (name: string, part: string) => answered[name] === part;
  const unsure = openDoubts(result);
  const marker = useMarkerPicture(
    unsure.length && doc.open ? doc.name : null,
    unsure.map((p) => p.name),
  );
  useEffect(() => clearMark, []);
  if (unsure.length === 0) return null;
  /** The parts offered as buttons: what the piece was read as, then what else it may be. */
  const offered = (p: ReportedPiece) =>
    [{ part: p.part, part_label: p.part_label }, ...(p.alternatives ?? [])].map((a) => ({
      part: a.part,
      part_label: partName(a.part, a.part_label),
    }));
  // None of the parts offered may be right: every other part is one choice away, from the tool's own enum.
  const parts = pieceColumnOptions(studio.tools.get(CONFIRM_TOOL), 'part').map((o) => ({
    ...o,
    label: partName(o.value, o.label),
  }));
  const others = (p: ReportedPiece) => parts.filter((o) => !offered(p).some((a) => a.part === o.value));
  /** The part answered for this piece from the other parts' list, if that is how it was answered. */
  const otherChosen = (p: ReportedPiece) =>
    others(p).some((o) => o.value === answered[p.name]) ? answered[p.name] : undefined;
  const answer = async (name: string, part: string, label: string) => {
    if (!(await doc.activate())) return;
    setAnswered((was) => ({ ...was, [name]: part }));
    const done = await (studio.model.configured
      ? studio.chat(t('garment.answerPart', { name, part: label }))
      : studio.run([{ name: CONFIRM_TOOL, arguments: { pieces: [{ name, part }] } }]));
    // Not taken (the model service failed, the call was refused): the piece is still to be answered.
    if (!done)
      setAnswered((was) => {
        const { [name]: _, ...rest } = was;
        return rest;
      });
  };
  return (
    <div class="doubt-note" role="note">
      <p class="doubt-line">{t('garment.unsure')}</p>
      <ul class="doubt-list">
        {unsure.map((p) => {
          const piece =
            doc.name && p.bounds
              ? {
                  doc: doc.name,
                  name: p.name,
                  bounds: { x: p.bounds.left, y: p.bounds.top, w: p.bounds.width, h: p.bounds.height },
                }
              : null;
          return (
            <li key={p.name} {...pointsAt(piece)}>
              {piece && <PieceThumb piece={piece} marker={marker} />}
              <div class="doubt-piece">
                <span>
                  {t('garment.unsurePiece', {
                    name: p.same_outline?.length
                      ? t('garment.sameOutline', {
                          name: p.name,
                          others: p.same_outline.join(t('list.separator')),
                        })
                      : p.name,
                    part: withOdds(partName(p.part, p.part_label), p.confidence),
                    other: alternativesText(p.alternatives ?? [], partName),
                  })}
                </span>
                <span class="doubt-answers">
                  {offered(p).map(({ part, part_label: label }) => (
                    <button
                      key={part}
                      type="button"
                      class={chosen(p.name, part) ? 'chosen' : undefined}
                      aria-pressed={chosen(p.name, part)}
                      aria-label={t('garment.answerPart', { name: p.name, part: label })}
                      disabled={studio.busy || !doc.open}
                      onClick={() => void answer(p.name, part, label)}
                    >
                      {t('garment.isPart', { part: label })}
                    </button>
                  ))}
                  <select
                    aria-label={t('garment.otherPartOf', { name: p.name })}
                    class={otherChosen(p) ? 'chosen' : undefined}
                    value={otherChosen(p) ?? ''}
                    disabled={studio.busy || !doc.open}
                    onChange={(e) => {
                      const part = e.currentTarget.value;
                      const option = parts.find((o) => o.value === part);
                      if (option) void answer(p.name, part, option.label);
                    }}
                  >
                    <option value="">{t('garment.otherPart')}</option>
                    {others(p).map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </span>
              </div>
            </li>
          );
        })}
      </ul>
      <p class="doubt-line muted">
        {doc.open
          ? t(Object.keys(answered).length ? 'garment.answered' : 'garment.unsureHow', {
              confirm: t('garment.confirm'),
            })
          : t('garment.docClosed', { doc: doc.name ?? '' })}
      </p>
    </div>
  );
}
