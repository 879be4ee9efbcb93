#!/usr/bin/env bash
# System packages the test suite uses as independent references: psd-tools reads back the PSDs we write,
# ImageMagick is the reference for pixel operations, Chromium (driven by playwright-core) is the browser the
# studio's tests use (its headless shell for most, the full browser for the main walk-through:
# test/support/browser.ts), libgs-common holds the default CMYK press profile (Ghostscript's SWOP profile,
# /usr/share/color/icc/ghostscript/default_cmyk.icc), and GIMP is a second independent PSD reader (its own loader
# and compositor, run headless by gimp-console-2.10), with gimp-data-extras' patterns as real repeat tiles.
# Installed only when missing. Tests call /usr/bin/convert and /usr/bin/identify by full path: another `convert`
# may come first on PATH.
set -euo pipefail
need=()
/usr/bin/python3 -c 'import psd_tools' 2>/dev/null || need+=(python3-psd-tools)
dpkg -s imagemagick >/dev/null 2>&1 || need+=(imagemagick)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || need+=(chromium-headless-shell)
[ -f /usr/share/color/icc/ghostscript/default_cmyk.icc ] || need+=(libgs-common)
[ -x /usr/bin/gimp-console-2.10 ] || need+=(gimp)
# Real repeat tiles for the lattice test (GPL data, read from the system, never vendored).
[ -f /usr/share/gimp/2.0/patterns/abstract_flowers.pat ] || need+=(gimp-data-extras)
# Liberation's fonts have Arial's, Times New Roman's and Courier New's metrics: Photoshop's text renderings
# (test/fixtures/photoshop-text) are drawn again with them.
[ -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ] || need+=(fonts-liberation)
# Poppler reads the PDFs we export (page size, the embedded picture and its colour space), independently of us.
[ -x /usr/bin/pdfimages ] || need+=(poppler-utils)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
