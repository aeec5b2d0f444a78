# shellcheck shell=bash
# Sourced by the scripts: a virtualenv with the pinned requirements, kept per machine and keyed by a hash of the
# requirements and the Python that runs it (older ones removed), a pip download cache beside it, and a collection
# path that points at this checkout (ansible needs ansible_collections/<namespace>/<name>/ on disk).
# VIRTINFRA_CACHE moves every per-machine cache (default ~/.cache/virtinfra-hyperconverged); VIRTINFRA_VENV names
# a virtualenv to use instead.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTINFRA_CACHE="${VIRTINFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/virtinfra-hyperconverged}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
export PIP_CACHE_DIR="$VIRTINFRA_CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1
requirements_key="$( (cat "$ROOT/tests/requirements.txt"; "$PYTHON" -c 'import sys; print(sys.version)') \
  | sha256sum | cut -c1-16)"
if [ -n "${VIRTINFRA_VENV:-}" ]; then
  VENV="$VIRTINFRA_VENV"
else
  VENV="$VIRTINFRA_CACHE/venv/$requirements_key"
fi
if [ ! -f "$VENV/.complete-$requirements_key" ]; then
  mkdir -p "$VIRTINFRA_CACHE"
  exec 8>"$VIRTINFRA_CACHE/.venv.lock"
  flock 8   # another run may be building the same venv
  if [ ! -f "$VENV/.complete-$requirements_key" ]; then
    echo "== creating $VENV with pinned requirements"
    # Explicit checks: this file is also sourced where errexit does not apply (a caller's `cmd || ...`).
    if ! { rm -rf --one-file-system -- "$VENV" && "$PYTHON" -m venv "$VENV" \
           && "$VENV/bin/pip" install --quiet -r "$ROOT/tests/requirements.txt"; }; then
      echo "creating the virtualenv $VENV failed" >&2
      exit 1
    fi
    touch "$VENV/.complete-$requirements_key"
    if [ -z "${VIRTINFRA_VENV:-}" ]; then
      for old in "$VIRTINFRA_CACHE"/venv/*/; do
        [ "${old%/}" = "$VENV" ] || rm -rf --one-file-system -- "${old%/}"
      done
    fi
  fi
  exec 8>&-
fi
export PATH="$VENV/bin:$PATH" VIRTUAL_ENV="$VENV"
COLLECTIONS="$ROOT/.cache/collections"
mkdir -p "$COLLECTIONS/ansible_collections/virtinfra"
# Only when it differs: ln -sfn unlinks first, and jobs running side by side resolve the collection through it.
[ "$(readlink "$COLLECTIONS/ansible_collections/virtinfra/hyperconverged")" = "$ROOT" ] \
  || ln -sfn "$ROOT" "$COLLECTIONS/ansible_collections/virtinfra/hyperconverged"
export ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS"
# Ansible's per-user state (temporary files, caches) stays in the checkout's cache, never in ~/.ansible.
export ANSIBLE_HOME="$ROOT/.cache/ansible-home"
# The ssh connection's ControlPath sockets (the QEMU guest) would otherwise go to ~/.ansible/cp.
export ANSIBLE_SSH_CONTROL_PATH_DIR="$ANSIBLE_HOME/cp"
# Where modules run on the controller (connection local) Ansible's remote_tmp would be ~/.ansible/tmp as well. The
# same setting applies on the test hosts, where /tmp is a tmpfs that podman's file transfer cannot see: /var/tmp.
export ANSIBLE_REMOTE_TEMP="${ANSIBLE_REMOTE_TEMP:-/var/tmp/.ansible-virtinfra-tests}"
export ANSIBLE_NOCOLOR="${ANSIBLE_NOCOLOR:-1}" ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False
export COLLECTION_DIR="$COLLECTIONS/ansible_collections/virtinfra/hyperconverged"
