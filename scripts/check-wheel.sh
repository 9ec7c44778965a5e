#!/usr/bin/env bash
# Build the wheel, install it into a fresh virtual environment and run the program from it,
# outside the repository: the CLI end to end, then the window offscreen on the default sample
# design. Fails if anything (catalog, schemas, icons, sample designs) is only found in the
# source tree. Usage: bash scripts/check-wheel.sh   (PYTHON=python3.12 to choose the interpreter)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/topo-wheel-check.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
unset PYTHONPATH TOPO_DESIGNER_RESOURCES

step() { echo "wheel check: $*"; }

# Build from a copy of the working tree: no build/ folder left in the repository, and no stale
# one from an earlier build can slip files into the wheel.
step "copying the source tree"
mkdir "$TMP/src"
tar -C "$ROOT" --exclude=./.git --exclude=./.venv --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude='.*_cache' -cf - . | tar -C "$TMP/src" -xf -

step "creating a virtual environment with $("$PYTHON" --version)"
"$PYTHON" -m venv "$TMP/venv"
VENV="$TMP/venv"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

step "building the wheel"
"${PIP[@]}" wheel -q --no-deps -w "$TMP/dist" "$TMP/src"
WHEEL="$(ls "$TMP"/dist/topo_designer-*.whl)"
step "installing $(basename "$WHEEL") and its dependencies"
"${PIP[@]}" install -q "$WHEEL"

# Run outside the repository, with a private home so no settings or recovery files of the user
# are read or written.
RUN="$TMP/run"
mkdir -p "$RUN/home"
cd "$RUN"
export HOME="$RUN/home" XDG_CONFIG_HOME="$RUN/home/.config" XDG_DATA_HOME="$RUN/home/.local/share" \
       XDG_CACHE_HOME="$RUN/home/.cache"
TOPO="$VENV/bin/topo-designer"

step "resources and sample designs come from the installed package"
"$VENV/bin/python" - <<'EOF'
import sysconfig
from pathlib import Path

import designer
from designer.model.catalog import resources_dir
from designer.model.shipped import sample_designs_dir

package = Path(sysconfig.get_paths()["purelib"]).resolve() / "designer"
for name, path in (("designer", Path(designer.__file__).parent), ("resources", resources_dir()),
                   ("sample designs", sample_designs_dir())):
    print(f"  {name}: {path}")
    assert path.resolve().is_relative_to(package), f"{name} not in the installed package: {path}"
assert sorted((resources_dir() / "catalog").glob("*.json")), "no catalog files"
assert sorted((resources_dir() / "schema").glob("*.json")), "no schema files"
assert sorted(sample_designs_dir().glob("*.json")), "no sample designs"
EOF

step "the README's command-line tour"
# The same commands, in the same order, as the README's tour (the window commands run below).
"$TOPO" generate rail-optimized --sus 4 --ufm -o superpod.json
"$TOPO" generate fat-tree --k 8 -o ft8.json
"$TOPO" validate superpod.json            # the SuperPOD sample fabric is clean: exit 0
"$TOPO" validate ft8.json >/dev/null
"$TOPO" analyze superpod.json --sizes 1MiB,1GiB >analyze.txt
"$TOPO" analyze superpod.json --json report.json --sizes 1MiB,1GiB --algorithm ring >/dev/null
"$TOPO" analyze superpod.json --sizes 1GiB --explain >explain.txt
"$TOPO" bom superpod.json >bom.txt
"$TOPO" --help >help.txt
"$TOPO" validate - <superpod.json >/dev/null
grep -q "1,016 GPUs" analyze.txt || { echo "wheel check: the 4-SU SuperPOD is not 1,016 GPUs" >&2; exit 1; }
"$VENV/bin/python" -c "import json; r = json.load(open('report.json')); assert r['format'] == 'topo-designer-report'"
echo "  analyze $(wc -l <analyze.txt) lines, explain $(wc -l <explain.txt), bom $(wc -l <bom.txt), help $(wc -l <help.txt)"

step "the window, offscreen, on the default sample design"
QT_QPA_PLATFORM=offscreen timeout 300 "$VENV/bin/python" - <<'EOF'
from PySide6.QtCore import QTimer

from designer.gui import icons
from designer.gui.window import app
from designer.model.catalog import resources_dir
from designer.model.shipped import sample_designs_dir

qapp = app.create_application()
sample = app.default_design_path()
assert sample is not None and sample.parent == sample_designs_dir(), sample
window = app.create_window(None)
window.show()
QTimer.singleShot(500, window.close)  # let it lay out and paint, then close: the event loop ends
qapp.exec()
devices = len(window.document.design.devices)
assert devices > 0, "the sample design did not load"
assert not icons.icon("open").isNull(), "no toolbar icon"
print(f"  {devices} devices loaded from {sample.name}; icons from {resources_dir() / 'icons'} or drawn")
EOF

echo "wheel check: ok"
