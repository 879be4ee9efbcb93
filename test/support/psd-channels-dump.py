"""Prints a PSD's merged-image channels as psd-tools reads them, as JSON, and writes each channel's bytes to
OUT_DIR/<index>.raw: the header's channel count and size, the names (1045, else 1006), identifiers (1053) and
display records (1077, hex) Photoshop lists them with."""
import json
import os
import sys

import numpy as np
from psd_tools import PSDImage

path, out_dir = sys.argv[1], sys.argv[2]
psd = PSDImage.open(path)
header = psd._record.header
resources = psd.image_resources
data = psd._record.image_data.get_data(header, False)
dtype = np.uint8 if header.depth == 8 else np.dtype(">u2")
planes = np.frombuffer(data, dtype=dtype).reshape(header.channels, header.height, header.width)
for i in range(header.channels):
    with open(os.path.join(out_dir, f"{i}.raw"), "wb") as f:
        f.write(planes[i].astype(np.uint8).tobytes())


def get(key):
    return resources.get_data(key) if key in resources else None


names = get(1045) or get(1006) or []
display = get(1077)
print(
    json.dumps(
        {
            "channels": header.channels,
            "width": header.width,
            "height": header.height,
            "mode": int(header.color_mode),
            "names": [n.rstrip("\x00") for n in names],
            "identifiers": [int(i) for i in get(1053)] if get(1053) is not None else None,
            "display": display.hex() if isinstance(display, (bytes, bytearray)) else None,
        }
    )
)
