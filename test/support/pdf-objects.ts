/**
 * The objects of a PDF we export, parsed by pdf-lib: what Poppler reports only through a colour conversion (its
 * tools show an RGB picture through the file's PDF/X output intent, as a press would print it) is read as stored.
 */
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';

/** The first image XObject's samples, inflated as they are stored, and its colour space's profile stream. */
export async function storedImage(
  pdf: Uint8Array,
): Promise<{ width: number; height: number; data: Buffer; colorSpace: PDFArray }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const found = [...doc.context.enumerateIndirectObjects()].find(
    ([, o]) => o instanceof PDFRawStream && o.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
  );
  if (!found) throw new Error('no image in the PDF');
  const image = found[1] as PDFRawStream;
  const number = (key: string) => Number(image.dict.get(PDFName.of(key))?.toString());
  return {
    width: number('Width'),
    height: number('Height'),
    data: inflateSync(image.contents),
    colorSpace: image.dict.get(PDFName.of('ColorSpace')) as PDFArray,
  };
}

/** The PDF/X output intents of `pdf`, each with its profile's bytes inflated, and the file's objects. */
export async function outputIntents(pdf: Uint8Array) {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const list = doc.catalog.lookupMaybe(PDFName.of('OutputIntents'), PDFArray);
  const intents = Array.from({ length: list?.size() ?? 0 }, (_, i) => {
    const intent = list!.lookup(i, PDFDict);
    const ref = intent.get(PDFName.of('DestOutputProfile'));
    const profile = intent.lookup(PDFName.of('DestOutputProfile')) as PDFRawStream;
    return {
      subtype: intent.get(PDFName.of('S'))?.toString(),
      profileRef: ref,
      profile: inflateSync(profile.contents),
      components: Number(profile.dict.get(PDFName.of('N'))?.toString()),
    };
  });
  return { doc, intents };
}
