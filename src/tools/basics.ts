/** Group A: document and layer basics. */

import { copyLayerInto } from '../engine/copy.js';
import { fail } from '../engine/errors.js';
import { groupLayer, pixelLayer } from '../engine/factory.js';
import type { DocState, Layer } from '../engine/model.js';
import { closest } from '../engine/names.js';
import { documentProfile, profileSummary } from '../engine/press-profile.js';
import {
  allocateId,
  childrenOf,
  insertLayer,
  isAncestor,
  layerById,
  layersNamed,
  moveLayer,
  parentOf,
  removeLayer,
  setActive,
  setLayer,
  slotAbove,
  topDown,
} from '../engine/tree.js';
import { alignLayers } from './align.js';
import { documentSummary, layerSummary, physicalSize } from './describe.js';
import { assertUnlocked } from './guards.js';
import { mergeLayers } from './merge.js';
import { activeDoc, activeLayer, selectedLayers } from './resolve.js';
import type { ToolHandlers } from './types.js';

/** The layer tree for reports: top first, as a layers panel shows it. */
export function layerTree(state: DocState, parent: number | null = null): unknown[] {
  const ids = childrenOf(state, parent);
  return [...ids].reverse().map((id) => {
    const layer = layerById(state, id);
    const summary = layerSummary(state, layer);
    return layer.kind === 'group' ? { ...summary, children: layerTree(state, id) } : summary;
  });
}

function addAboveActive(state: DocState, layer: Layer): DocState {
  const { parent, index } = slotAbove(state, state.active);
  return setActive(insertLayer(state, layer, parent, index), layer.id);
}

export const basicsHandlers = {
  get_document_info(_args, ctx) {
    const doc = activeDoc(ctx);
    return {
      document: documentSummary(doc),
      physical_size: physicalSize(doc),
      // A CMYK document's inks are in this profile: what a print shop asks first.
      ...(doc.state.mode === 'cmyk' ? { cmyk_profile: profileSummary(documentProfile(doc.state)) } : {}),
      guides: doc.state.guides.length,
      // Spot plates go to the print shop as separate inks: the model should know they are there.
      ...(doc.state.channels?.length
        ? { channels: doc.state.channels.map((c) => ({ name: c.name, kind: c.kind })) }
        : {}),
    };
  },

  get_layer_structure(_args, ctx) {
    const doc = activeDoc(ctx);
    return { document: doc.name, layers: layerTree(doc.state) };
  },

  create_layer({ name }, ctx) {
    const doc = activeDoc(ctx);
    const [id, state] = allocateId(doc.state);
    const next = addAboveActive(state, pixelLayer(id, name));
    ctx.tx.update(doc.id, next);
    return { layer: layerSummary(next, layerById(next, id)) };
  },

  rename_layer({ new_name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = activeLayer(doc.state);
    assertUnlocked(layer, '重命名');
    const next = setLayer(doc.state, { ...layer, name: new_name });
    ctx.tx.update(doc.id, next);
    return { old_name: layer.name, layer: layerSummary(next, layerById(next, layer.id)) };
  },

  delete_layer(_args, ctx) {
    const doc = activeDoc(ctx);
    const layer = activeLayer(doc.state);
    assertUnlocked(layer, '删除');
    const others = [...topDown(doc.state)].filter(
      (e) => e.layer.id !== layer.id && !isAncestor(doc.state, layer.id, e.layer.id),
    );
    if (others.length === 0) {
      fail('invalid_state', `“${layer.name}”是文档中唯一的图层，不能删除`, {
        hint: '先用 create_layer 新建图层',
      });
    }
    // Photoshop activates the layer below, or the one above when the deleted layer was the lowest.
    const siblings = childrenOf(doc.state, parentOf(doc.state, layer.id));
    const at = siblings.indexOf(layer.id);
    const neighbour =
      siblings[at - 1] ?? siblings[at + 1] ?? parentOf(doc.state, layer.id) ?? others[0]!.layer.id;
    const next = setActive(removeLayer(doc.state, layer.id), neighbour);
    ctx.tx.update(doc.id, next);
    return {
      deleted: layer.name,
      active_layer: layerById(next, neighbour).name,
      layer_count: next.layers.size,
    };
  },

  duplicate_layer(_args, ctx) {
    const doc = activeDoc(ctx);
    const layer = activeLayer(doc.state);
    const { state, id } = copyLayerInto(
      doc.state,
      doc.state,
      layer.id,
      `${layer.name} 拷贝`,
      slotAbove(doc.state, layer.id),
    );
    const next = setActive(state, id);
    ctx.tx.update(doc.id, next);
    return { source: layer.name, layer: layerSummary(next, layerById(next, id)) };
  },

  align_layers({ type }, ctx) {
    const doc = activeDoc(ctx);
    const layers = selectedLayers(doc.state);
    if (layers.length === 0) activeLayer(doc.state);
    const edge = ({ centerH: 'center_h', centerV: 'center_v' } as const)[type as 'centerH'] ?? type;
    const { state, moved } = alignLayers(doc.state, layers, edge as 'left');
    ctx.tx.update(doc.id, state);
    return {
      aligned: layers.map((l) => l.name),
      to: layers.length > 1 ? 'selection' : 'canvas',
      moved,
      layers: layers.map((l) => layerSummary(state, layerById(state, l.id))),
    };
  },

  merge_layers(_args, ctx) {
    const doc = activeDoc(ctx);
    const { state, merged, into } = mergeLayers(doc.state, selectedLayers(doc.state));
    ctx.tx.update(doc.id, state);
    return { merged, layer: layerSummary(state, layerById(state, into)) };
  },

  create_layer_group({ name }, ctx) {
    const doc = activeDoc(ctx);
    const existing = [...topDown(doc.state)].find((e) => e.layer.kind === 'group' && e.layer.name === name);
    if (existing) {
      return { created: false, group: layerSummary(doc.state, existing.layer) };
    }
    const [id, state] = allocateId(doc.state);
    const next = addAboveActive(state, groupLayer(id, name));
    ctx.tx.update(doc.id, next);
    return { created: true, group: layerSummary(next, layerById(next, id)) };
  },

  move_layer_to_group({ group_name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = activeLayer(doc.state);
    assertUnlocked(layer, '移动');
    const groups = [...topDown(doc.state)].filter((e) => e.layer.kind === 'group').map((e) => e.layer);
    const group = groups.find((g) => g.name === group_name);
    if (!group) {
      if (layersNamed(doc.state, group_name).length > 0) {
        fail('invalid_state', `“${group_name}”不是图层组`, { hint: '先用 create_layer_group 创建图层组' });
      }
      const near = closest(
        group_name,
        groups.map((g) => g.name),
      );
      fail('not_found', `没有名为“${group_name}”的图层组`, {
        hint: near.length
          ? `是否指 ${near.map((n) => `“${n}”`).join('、')}？`
          : '先用 create_layer_group 创建图层组',
        details: { closest: near },
      });
    }
    if (group.id === layer.id || isAncestor(doc.state, layer.id, group.id)) {
      fail('invalid_state', `不能把“${layer.name}”移入它自身或它包含的图层组`);
    }
    const next = moveLayer(doc.state, layer.id, group.id, childrenOf(doc.state, group.id).length);
    ctx.tx.update(doc.id, next);
    return { layer: layerSummary(next, layerById(next, layer.id)), group: group.name };
  },
} satisfies ToolHandlers;
