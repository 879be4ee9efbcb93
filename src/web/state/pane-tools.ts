/**
 * The registry tools the panes drive directly (the layer controls, history, files, document tabs, the garment
 * buttons), by name only: their labels, parameters and limits still come from the registry.
 */
export const PANE_TOOLS = {
  selectLayers: 'select_layers',
  createLayer: 'create_layer',
  createGroup: 'create_layer_group',
  duplicateLayer: 'duplicate_layer',
  deleteLayer: 'delete_layer',
  rename: 'rename_layer',
  setVisible: 'set_layer_visible',
  lock: 'lock_layer',
  blendMode: 'set_layer_blend_mode',
  opacity: 'set_layer_opacity',
  fillOpacity: 'set_layer_fill_opacity',
  move: 'move_layer',
  moveMany: 'move_layers',
  arrange: 'arrange_layer',
  bringToFront: 'bring_to_front',
  sendToBack: 'send_to_back',
  undo: 'undo',
  redo: 'redo',
  openDocument: 'open_document',
  placeImage: 'place_image',
  switchDocument: 'switch_document',
  closeDocument: 'close_document',
  createDocument: 'create_document',
  garmentIdentify: 'identify_pieces',
  garmentPreview: 'generate_garment_preview',
  confirmParts: 'confirm_piece_parts',
  garmentApply: 'extract_and_apply_all_pieces',
  garmentVerify: 'verify_pattern_result',
} as const;
