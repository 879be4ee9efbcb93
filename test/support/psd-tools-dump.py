"""Prints what psd-tools (an independent PSD reader) sees in a PSD, as JSON on stdout.

Usage: /usr/bin/python3 psd-tools-dump.py FILE.psd [--merged OUT.png] [--composite OUT.png] [--pixels DIR]

  --merged     writes the merged image stored in the file (what Photoshop saved as the composite)
  --composite  writes psd-tools' own composite of the layers (psd.composite(force=True))
  --pixels     writes the raw bytes of the merged image and of every pixel layer (bottom to top, depth first)
               into DIR, each twice: as stored (CMYK as ink, 0 = none) in `<name>.raw` and converted to sRGB
               through the embedded ICC profile (psd-tools' apply_icc, LittleCMS) in `<name>-srgb.raw`; the
               JSON gains `pixels`, listing each file's name, PIL mode and size

Layers are listed bottom to top, like ag-psd and our model.
"""

import json
import sys

from psd_tools import PSDImage
from psd_tools.constants import Resource, Tag


def blend_name(mode):
    name = getattr(mode, 'name', str(mode))
    return name.lower().replace('_', ' ')


def effects_of(layer):
    out = []
    if not layer.has_effects():
        return out
    for e in layer.effects:
        item = {'type': type(e).__name__, 'enabled': bool(getattr(e, 'enabled', True))}
        for key in ('size', 'opacity', 'angle', 'distance', 'choke', 'position'):
            value = getattr(e, key, None)
            if value is None:
                continue
            if hasattr(value, 'value'):
                value = value.value
            if isinstance(value, bytes):
                value = value.decode('latin-1').strip()
            elif hasattr(value, 'name') and not isinstance(value, (int, float)):
                value = str(value.name)
            try:
                json.dumps(value)
            except TypeError:
                value = str(value)
            item[key] = value
        color = getattr(e, 'color', None)
        if color is not None:
            try:
                item['color'] = [float(color[k]) for k in (b'Rd  ', b'Grn ', b'Bl  ')]
            except Exception:
                pass
        out.append(item)
    return out


def layer_of(layer):
    item = {
        'name': layer.name,
        'kind': layer.kind,
        'visible': bool(layer.visible),
        'opacity': int(layer.opacity),
        'blend': blend_name(layer.blend_mode),
        'clipping': bool(layer.clipping_layer),
        'bbox': list(layer.bbox),
        'mask': None,
        'effects': effects_of(layer),
    }
    record = getattr(layer, '_record', None)
    if record is not None and not layer.is_group():
        # -1 is the transparency channel: Photoshop's Background layer has none.
        item['channelIds'] = [int(c.id) for c in record.channel_info]
    protected = layer.tagged_blocks.get_data(Tag.PROTECTED_SETTING) if layer.tagged_blocks else None
    item['locks'] = int(protected) if protected is not None else 0
    if layer.has_mask():
        m = layer.mask
        item['mask'] = {
            'bbox': list(m.bbox),
            'defaultColor': int(m.background_color),
            'disabled': bool(m.disabled),
        }
    if layer.kind == 'type':
        item['text'] = layer.text
        item['transform'] = [float(v) for v in layer.transform]
        item['fonts'] = [str(f['Name'].value if hasattr(f['Name'], 'value') else f['Name']).strip("'")
                         for f in layer.resource_dict['FontSet']]
    if layer.kind == 'smartobject':
        so = layer.smart_object
        item['smart'] = {'filename': so.filename, 'filetype': str(so.filetype), 'size': len(so.data or b'')}
    if layer.is_group():
        item['children'] = [layer_of(child) for child in layer]
    return item


def write_pixels(psd, folder):
    import os
    listed = []

    def save(name, image, image_icc, layer=None):
        if image is None:
            return
        with open(os.path.join(folder, name + '.raw'), 'wb') as f:
            f.write(image.tobytes())
        entry = {'name': name, 'mode': image.mode, 'size': list(image.size), 'layer': layer}
        if image_icc is not None:
            with open(os.path.join(folder, name + '-srgb.raw'), 'wb') as f:
                f.write(image_icc.tobytes())
            entry['srgbMode'] = image_icc.mode
        listed.append(entry)

    save('merged', psd.topil(apply_icc=False), psd.topil(apply_icc=True))
    index = 0
    for layer in psd.descendants():
        if layer.is_group():
            continue
        save('layer-%d' % index, layer.topil(apply_icc=False), layer.topil(apply_icc=True), layer.name)
        index += 1
    return listed


def main():
    args = sys.argv[1:]
    path = args[0]
    psd = PSDImage.open(path)
    res = psd.image_resources.get_data(Resource.RESOLUTION_INFO)
    guides = psd.image_resources.get_data(Resource.GRID_AND_GUIDES_INFO)
    out = {
        'width': psd.width,
        'height': psd.height,
        'colorMode': int(psd.color_mode),
        'channels': psd.channels,
        'depth': psd.depth,
        'version': psd.version,
        'resolution': None,
        'guides': [],
        'layers': [layer_of(layer) for layer in psd],
    }
    if res is not None:
        # Fixed-point 16.16 in the file; psd-tools returns the raw integer.
        h = res.horizontal / 65536.0 if isinstance(res.horizontal, int) else float(res.horizontal)
        v = res.vertical / 65536.0 if isinstance(res.vertical, int) else float(res.vertical)
        out['resolution'] = {'horizontal': h, 'vertical': v, 'unit': int(res.horizontal_unit)}
    if guides is not None:
        for location, direction in guides.data:
            # Locations are stored in 1/32 px; direction 0 = vertical, 1 = horizontal.
            out['guides'].append({
                'location': location / 32.0,
                'direction': 'vertical' if int(direction) == 0 else 'horizontal',
            })
    i = 1
    while i < len(args):
        if args[i] == '--merged':
            psd.topil().convert('RGBA').save(args[i + 1])
            i += 2
        elif args[i] == '--pixels':
            out['pixels'] = write_pixels(psd, args[i + 1])
            i += 2
        elif args[i] == '--composite':
            psd.composite(force=True).convert('RGBA').save(args[i + 1])
            i += 2
        else:
            raise SystemExit('unknown option ' + args[i])
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
