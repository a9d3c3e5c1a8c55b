#!/usr/bin/env bash
# Build the Shoebox Debian package: dist/shoebox_<version>_amd64.deb (or shoebox-gpu_... with --gpu).
#
#   bash installer/build_linux.sh [--gpu] [--venv DIR] [--python PYTHON]
#
#   --gpu          also bundle torch==2.13.0 + transformers (the [gpu] extra) for HunyuanOCR; several GB
#   --venv DIR     build in DIR (created when missing, kept afterwards; for repeated builds); by default a
#                  throwaway venv in a temporary folder is used and deleted at the end
#   --python PY    the Python (3.11+) that makes the venv (default: python3.11, else python3)
#
# Environment: SHOEBOX_DEB_COMPRESSION=xz (default) | gzip | zstd | none
# Needs: Python 3.11+ with venv, dpkg-deb, access to a package index (pip), about 3 GB of free disk.
# Steps: venv -> pip install pyinstaller + the project -> icons -> PyInstaller (installer/shoebox.spec)
# -> smoke test of the bundle -> stage /opt/shoebox, /usr/bin links, .desktop entry, icons -> dpkg-deb.
# The version comes from pyproject.toml (installer/bundle.py), never from this file.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

GPU=0
VENV=""
PYTHON=""
while [ $# -gt 0 ]; do
    case "$1" in
        --gpu) GPU=1 ;;
        --venv) VENV="$2"; shift ;;
        --python) PYTHON="$2"; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "build_linux.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

if [ -z "$PYTHON" ]; then
    PYTHON="$(command -v python3.11 || command -v python3 || true)"
fi
[ -n "$PYTHON" ] || { echo "build_linux.sh: no python3 found" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "build_linux.sh: dpkg-deb not found (apt-get install dpkg)" >&2; exit 1; }

START=$(date +%s)
VERSION="$("$PYTHON" installer/bundle.py version)"
if [ "$GPU" = 1 ]; then PACKAGE=shoebox-gpu; else PACKAGE=shoebox; fi
DEB="dist/${PACKAGE}_${VERSION}_amd64.deb"
echo "== Shoebox $VERSION ($PACKAGE) -> $DEB"

# --- 1. build venv ------------------------------------------------------------------------------------
if [ -z "$VENV" ]; then
    TMP_VENV="$(mktemp -d -t shoebox-build-venv.XXXXXX)"
    trap 'rm -rf "$TMP_VENV"' EXIT
    VENV="$TMP_VENV/venv"
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating build venv $VENV"
    "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
echo "== installing PyInstaller and the project"
"$PY" -m pip install --quiet --upgrade pip
if [ "$GPU" = 1 ]; then
    # The [gpu] extra pins torch (pyproject.toml); refuse to go on if someone unpinned it, since an
    # unpinned torch pulls a multi-GB CUDA build of whatever version is newest.
    if ! "$PYTHON" installer/bundle.py gpu-requirements | grep -qx 'torch==2.13.0'; then
        echo "build_linux.sh: the [gpu] extra must pin torch==2.13.0" >&2; exit 1
    fi
    "$PY" -m pip install --quiet pyinstaller "torch==2.13.0" "$REPO[gpu]"
else
    "$PY" -m pip install --quiet pyinstaller "$REPO"
fi

# --- 2. icons -----------------------------------------------------------------------------------------
rm -rf build/icons
QT_QPA_PLATFORM=offscreen "$PY" installer/make_icons.py build/icons

# --- 3. PyInstaller -----------------------------------------------------------------------------------
echo "== PyInstaller (several minutes)"
SPEC_ARGS=()
[ "$GPU" = 1 ] && SPEC_ARGS=(-- --gpu)
rm -rf build/pyinstaller
"$PY" -m PyInstaller --noconfirm --log-level WARN \
    --distpath build/pyinstaller/dist --workpath build/pyinstaller/work \
    installer/shoebox.spec "${SPEC_ARGS[@]}"
BUNDLE="build/pyinstaller/dist/shoebox"
[ -x "$BUNDLE/shoebox" ] && [ -x "$BUNDLE/Shoebox" ] || { echo "build_linux.sh: bundle incomplete" >&2; exit 1; }

echo "== smoke test: $BUNDLE/shoebox --version"
SMOKE_HOME="$(mktemp -d)"
HOME="$SMOKE_HOME" "$BUNDLE/shoebox" --version | tee build/pyinstaller/version.txt
rm -rf "$SMOKE_HOME"
if grep -E '^(rapidocr|onnxruntime|PyMuPDF|PySide6-Essentials) not installed' build/pyinstaller/version.txt; then
    echo "build_linux.sh: the bundle lacks an engine library (see above)" >&2; exit 1
fi

# --- 4. stage the package tree ------------------------------------------------------------------------
STAGE="build/deb/${PACKAGE}_${VERSION}_amd64"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt/shoebox/models" "$STAGE/usr/bin" \
    "$STAGE/usr/share/applications" "$STAGE/usr/share/icons/hicolor/scalable/apps" \
    "$STAGE/usr/share/doc/$PACKAGE"
cp -a "$BUNDLE/." "$STAGE/opt/shoebox/"
cp installer/models-README.txt "$STAGE/opt/shoebox/models/README.txt"
ln -s /opt/shoebox/shoebox "$STAGE/usr/bin/shoebox"
ln -s /opt/shoebox/Shoebox "$STAGE/usr/bin/shoebox-gui"
cp installer/linux/shoebox.desktop "$STAGE/usr/share/applications/shoebox.desktop"
cp resources/icons/shoebox.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/shoebox.svg"
cp -a build/icons/hicolor/. "$STAGE/usr/share/icons/hicolor/"
cat > "$STAGE/usr/share/doc/$PACKAGE/copyright" <<EOF
Shoebox $VERSION
License: Apache-2.0 (see /usr/share/common-licenses/Apache-2.0).
Bundled third-party components (Python, Qt/PySide6, onnxruntime, rapidocr and its PP-OCR models,
PyMuPDF, OpenCV, NumPy, Pillow, libheif, zxing-cpp and others) keep their own licences; their licence
files are inside /opt/shoebox/_internal.
EOF

# Permissions as dpkg expects: nothing group/world writable; executables keep their x bit.
chmod -R u+rwX,go+rX,go-w "$STAGE"
cp installer/linux/postinst installer/linux/postrm "$STAGE/DEBIAN/"
chmod 755 "$STAGE/DEBIAN/postinst" "$STAGE/DEBIAN/postrm"

GLIBC="$(ldd --version | head -1 | grep -oE '[0-9]+\.[0-9]+$')"
INSTALLED_SIZE="$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)"
sed -e "s/@VERSION@/$VERSION/" -e "s/@INSTALLED_SIZE@/$INSTALLED_SIZE/" \
    -e "s/libc6 (>= [0-9.]*)/libc6 (>= $GLIBC)/" \
    installer/linux/control.in > "$STAGE/DEBIAN/control"
if [ "$GPU" = 1 ]; then
    sed -i -e "s/^Package: shoebox$/Package: $PACKAGE/" \
        -e "/^Recommends:/a Conflicts: shoebox\nReplaces: shoebox\nProvides: shoebox" \
        -e "s/^Description: .*/&, with the HunyuanOCR GPU engine/" "$STAGE/DEBIAN/control"
fi

# --- 5. build the .deb --------------------------------------------------------------------------------
mkdir -p dist
rm -f "$DEB"
echo "== dpkg-deb"
# xz: readable by every dpkg; it is the slow step (about 6 min for ~550 MB on 2 busy cores).
# SHOEBOX_DEB_COMPRESSION=gzip (or zstd, dpkg >= 1.21.18 / Ubuntu) trades size for speed.
dpkg-deb --root-owner-group -Z"${SHOEBOX_DEB_COMPRESSION:-xz}" --build "$STAGE" "$DEB"

END=$(date +%s)
echo "== done in $((END - START)) s"
echo "bundle:  $(du -sh "$BUNDLE" | cut -f1)  ($BUNDLE)"
echo "package: $(du -h "$DEB" | cut -f1)  ($DEB)"
echo "install: sudo apt install ./$DEB"
