# Sourced by the scripts: a project-local virtualenv with pinned requirements, and a collection path that
# points at this checkout (ansible needs ansible_collections/<namespace>/<name>/ on disk).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VIRTINFRA_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
stamp="$VENV/.requirements-$(sha256sum "$ROOT/tests/requirements.txt" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "== creating $VENV with pinned requirements"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$ROOT/tests/requirements.txt"
  touch "$stamp"
fi
export PATH="$VENV/bin:$PATH"
COLLECTIONS="$ROOT/.cache/collections"
mkdir -p "$COLLECTIONS/ansible_collections/virtinfra"
ln -sfn "$ROOT" "$COLLECTIONS/ansible_collections/virtinfra/hyperconverged"
export ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS"
export ANSIBLE_NOCOLOR="${ANSIBLE_NOCOLOR:-1}" ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False
COLLECTION_DIR="$COLLECTIONS/ansible_collections/virtinfra/hyperconverged"
