# shellcheck shell=bash
# Sourced by the scripts: a virtualenv with the pinned requirements, kept per machine and keyed by a hash of the
# requirements and the Python that runs it (older ones removed unless a run uses them), a pip download cache beside
# it, and a collection path that points at this checkout (ansible needs ansible_collections/<namespace>/<name>/).
# VIRTINFRA_CACHE moves every per-machine cache (default ~/.cache/virtinfra-hyperconverged); VIRTINFRA_VENV names
# a virtualenv to use instead; VIRTINFRA_REQUIREMENTS another requirements file (the harness's own tests).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTINFRA_CACHE="${VIRTINFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/virtinfra-hyperconverged}"
# The newest Python the machine has, 3.11 at the least: tests/requirements.txt then picks the newest ansible-core
# that runs on it (2.21 on 3.12+, 2.19 on 3.11). pyenv's installs are looked at directly, as tests/matrix/run.py
# does (a shim may name a version that is not installed); PYTHON chooses another.
newest_python() {
  local minor candidate installed
  for minor in 3.13 3.12 3.11; do
    installed="$(printf '%s\n' "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/python"$minor" | sort -V -r)"
    for candidate in $installed "$(command -v "python$minor" || true)"; do
      if [ -x "$candidate" ] && "$candidate" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        echo "$candidate"; return
      fi
    done
  done
  echo python3
}
PYTHON="${PYTHON:-$(newest_python)}"
export PIP_CACHE_DIR="$VIRTINFRA_CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1
# Go keeps the checksum database's state in $GOPATH/pkg/sumdb (by default ~/go) even with GOMODCACHE set elsewhere.
export GOPATH="${GOPATH:-$VIRTINFRA_CACHE/go/path}"
REQUIREMENTS="${VIRTINFRA_REQUIREMENTS:-$ROOT/tests/requirements.txt}"
requirements_key="$( (cat "$REQUIREMENTS"; "$PYTHON" -c 'import sys; print(sys.version)') \
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
           && "$VENV/bin/pip" install --quiet -r "$REQUIREMENTS"; }; then
      echo "creating the virtualenv $VENV failed" >&2
      exit 1
    fi
    touch "$VENV/.complete-$requirements_key"
    if [ -z "${VIRTINFRA_VENV:-}" ]; then
      # An older venv goes unless a run still uses it: a run of another checkout (other requirements) on this
      # machine holds it below, and removing it would pull its tools away mid-run.
      for old in "$VIRTINFRA_CACHE"/venv/*/; do
        old="${old%/}"
        [ "$old" != "$VENV" ] || continue
        flock --nonblock --exclusive "$old/.in-use" rm -rf --one-file-system -- "$old" \
          || echo "kept $old: a run is using it" >&2
      done
    fi
  fi
  exec 8>&-
fi
# A shared lock on the venv for as long as this shell (and what it starts) lives: see the removal above.
if [ -w "$VENV" ]; then
  exec 7>>"$VENV/.in-use"
  flock --shared 7
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
