/**
 * Image files a designer hands the studio (dropped on the canvas, pasted in the chat): uploaded to the session's
 * workspace, then opened as documents, or placed as new layers in the active document, as Photoshop pastes.
 */
import { IMAGE_FORMATS } from '../../registry/file-formats.js';
import { PANE_TOOLS } from './pane-tools.js';
import type { Studio } from './use-studio.js';

export async function openFiles(
  studio: Studio,
  files: readonly File[],
  as: 'document' | 'layer',
): Promise<void> {
  for (const file of files) {
    const path = await studio.upload(file, 'document');
    if (!path) continue;
    await studio.run([
      as === 'document'
        ? { name: PANE_TOOLS.openDocument, arguments: { path } }
        : // Pasted, as Photoshop pastes: pixel for pixel (placing a file would size it by its resolution).
          { name: PANE_TOOLS.placeImage, arguments: { path, size: 'pixels' } },
    ]);
  }
}

/**
 * An image on the clipboard as a file of its own: a screenshot or a copied image comes as "image.png", and a
 * second paste would take the first one's place in the workspace.
 */
export function pastedFile(file: File, at = new Date()): File {
  const stamp = at.toISOString().replace(/\D/g, '').slice(0, 14);
  const ext = IMAGE_FORMATS.find((f) => f.mime === file.type)?.id ?? 'png';
  return new File([file], `粘贴-${stamp}-${++pasted}.${ext}`, { type: file.type });
}

let pasted = 0;
