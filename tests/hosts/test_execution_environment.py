# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The execution environment that execution-environment.yml describes, built with ansible-builder on podman and run
the way AWX runs a job in it: the site in render mode (output equal to the project's own render), then in apply mode
against a real API server with AWX's bearer-token credential injected as K8S_AUTH_* variables, twice (changed=0).

Registries and Galaxy are unreachable here, so two inputs differ from a user's build, neither by editing what the
recipe says: the base image (build argument EE_BASE_IMAGE) is tests/hosts/ee-base, derived from the Debian 12
test-host image (Python 3.11, so pip picks ansible-core 2.19 within the recipe's range), and the collections the
recipe names come from artifacts of the ones the ansible package installed instead of Galaxy.

Everything podman stores for this test lives in a storage of its own under the cache (pruned freely: nothing there
belongs to anyone else), and every podman call runs in a private mount namespace, so that a killed build leaves no
overlay mount on the host.
"""

from __future__ import annotations

import filecmp
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import yaml
from harness.control_plane import ControlPlane, build
from harness.etcd_seed import start_with_crds
from harness.galaxy_artifacts import artifact_of_installed, with_dependencies

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
CACHE = pathlib.Path(os.environ.get("VIRTINFRA_CACHE", pathlib.Path.home() / ".cache" / "virtinfra-hyperconverged"))
STORAGE = CACHE / "ee-storage"
EE_IMAGE = "localhost/virtinfra-ee-test:latest"
BASE_IMAGE = "localhost/virtinfra-ee-base:latest"
INSTALLED = "/usr/share/ansible/collections/ansible_collections/virtinfra/hyperconverged"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("podman") is None,
                                reason="needs root and the host tools (scripts/host-tools install)")


def _podman_env() -> dict[str, str]:
    conf = STORAGE / "storage.conf"
    if not conf.exists():
        STORAGE.mkdir(parents=True, exist_ok=True)
        conf.write_text(f'[storage]\ndriver = "overlay"\ngraphroot = "{STORAGE / "graph"}"\n'
                        f'runroot = "{STORAGE / "run"}"\n', encoding="utf-8")
    return dict(os.environ, CONTAINERS_STORAGE_CONF=str(conf))


def _private(*argv: str, timeout: float = 1200, **kwargs) -> subprocess.CompletedProcess:
    """A command in a mount namespace of its own, with this test's podman storage."""
    kwargs.setdefault("env", _podman_env())
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "--", *argv], capture_output=True,
                          text=True, check=False, timeout=timeout, **kwargs)


def _checked(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    # pytest.fail, not assert: an assertion's message is cut to a line in the log, which hid why a build failed.
    if result.returncode != 0:
        command = " ".join(str(arg) for arg in result.args)
        pytest.fail(f"exit {result.returncode}: {command}\n--- stdout (end)\n{result.stdout[-6000:]}\n"
                    f"--- stderr (end)\n{result.stderr[-3000:]}", pytrace=False)
    return result


def _base_image(work: pathlib.Path) -> None:
    """The Debian 12 test-host image, imported into this storage once per build of it, and the EE base on it."""
    hosts_cache = pathlib.Path(_checked(subprocess.run([str(ROOT / "tests" / "hosts" / "build-images")],
                                                       capture_output=True, text=True, check=False,
                                                       env=dict(os.environ, VIRTINFRA_BUILD_STAGES="rootfs"))
                                        ).stdout.strip().splitlines()[-1])
    debian = f"localhost/virtinfra-deb12:{hosts_cache.name}"
    if _private("podman", "image", "exists", debian).returncode != 0:
        _checked(_private("sh", "-c", f'tar -C "{hosts_cache / "deb12"}" -c . | podman import - {debian}'))
        listed = _checked(_private("podman", "images", "--format", "{{.Repository}}:{{.Tag}}")).stdout.split()
        for older in [name for name in listed if name.startswith("localhost/virtinfra-deb12:") and name != debian
                      and not name.endswith(":latest")]:
            _private("podman", "rmi", older)
    _checked(_private("podman", "tag", debian, "localhost/virtinfra-deb12:latest"))
    context = work / "ee-base"
    shutil.copytree(ROOT / "tests" / "hosts" / "ee-base", context)
    shutil.copy(os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt", context / "host-ca.crt")
    _checked(_private("podman", "build", "--network", "host", "-t", BASE_IMAGE, str(context)))


def _recipe_with_local_collections(work: pathlib.Path) -> pathlib.Path:
    """The recipe as shipped, its Galaxy collections taken from artifacts in the build context instead."""
    recipe = yaml.safe_load((ROOT / "execution-environment.yml").read_text())
    for name in ("requirements.txt", "bindep.txt"):
        shutil.copy(ROOT / name, work / name)
    build_dir = work / "_build"
    build_dir.mkdir()
    galaxy = _checked(subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", str(ROOT), "--output-path",
                                      str(build_dir)], capture_output=True, text=True, check=False))
    built = next(build_dir.glob("virtinfra-hyperconverged-*.tar.gz"), None)
    assert built, galaxy.stdout
    built.rename(build_dir / "virtinfra-hyperconverged.tar.gz")  # where scripts/build-ee puts it
    deps = work / "deps"
    deps.mkdir()
    wanted = [entry["name"] for entry in recipe["dependencies"]["galaxy"]["collections"]]
    artifacts = [artifact_of_installed(name, deps) for name in with_dependencies(wanted)]
    recipe["dependencies"]["galaxy"] = {"collections": [
        {"name": f"/build/deps/{artifact.name}", "type": "file"} for artifact in artifacts]}
    recipe["additional_build_files"].append({"src": "deps/*.tar.gz", "dest": "deps"})
    path = work / "execution-environment.yml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


def _run_in_ee(*argv: str, env: dict[str, str] | None = None, volumes: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    options = ["--rm", "--network", "host"]
    for name, value in (env or {}).items():
        options += ["--env", f"{name}={value}"]
    for volume in volumes:
        options += ["--volume", volume]
    return _private("podman", "run", *options, EE_IMAGE, *argv, timeout=600)


def test_the_execution_environment_builds_and_runs_the_site_in_render_and_apply_mode(tmp_path):
    if shutil.which("ansible-builder", path=str(BIN)) is None:
        pytest.fail("ansible-builder is not in the virtualenv (tests/requirements.txt)")
    _base_image(tmp_path)
    recipe = _recipe_with_local_collections(tmp_path)
    _checked(_private(str(BIN / "ansible-builder"), "build", "--file", str(recipe), "--context",
                      str(tmp_path / "context"), "--container-runtime", "podman", "--tag", EE_IMAGE,
                      "--build-arg", f"EE_BASE_IMAGE={BASE_IMAGE}", "--build-arg", "PYCMD=/opt/ee/bin/python3",
                      "--build-arg", "PKGMGR=/usr/bin/apt-get", "--build-arg", "PKGMGR_PRESERVE_CACHE=always",
                      "--build-arg", "ANSIBLE_GALAXY_CLI_COLLECTION_OPTS=--offline",
                      "--extra-build-cli-args=--network=host", "--verbosity", "2"))
    # Older builds' layers: this storage is the test's own.
    _private("podman", "image", "prune", "--force")

    versions = _checked(_run_in_ee("ansible-galaxy", "collection", "list")).stdout
    for name in ("virtinfra.hyperconverged", "community.general", "ansible.posix"):
        assert name in versions, versions
    # A socks5:// proxy, as users configure one, needs PySocks where the modules run (requirements.txt).
    socks = _checked(_run_in_ee("/opt/ee/bin/python3", "-c", "import socks, urllib3.contrib.socks; print(socks.__version__)"))
    assert socks.stdout.strip(), socks.stderr

    # Render mode, as a job without a cluster credential: the manifests equal the project's own render.
    out = tmp_path / "rendered-in-ee"
    out.mkdir(mode=0o777)
    out.chmod(0o777)  # the EE runs as uid 1000, as AWX runs it
    inventory = f"{INSTALLED}/examples/inventory/hosts.yml"
    render = _checked(_run_in_ee("ansible-playbook", "-i", inventory, "virtinfra.hyperconverged.site", "-e",
                                 "site_render_dir=/runner/out", volumes=(f"{out}:/runner/out",)))
    assert "render mode" in render.stdout, render.stdout[-3000:]
    reference = tmp_path / "rendered-here"
    env = {k: v for k, v in os.environ.items() if not k.startswith("K8S_AUTH_")}
    _checked(subprocess.run([str(BIN / "ansible-playbook"), "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                             str(ROOT / "playbooks" / "site.yml"), "-e", f"site_render_dir={reference}",
                             "-e", f"ansible_python_interpreter={sys.executable}"],
                            env=env, capture_output=True, text=True, check=False))
    # Every file, the tree's and argocd/'s (Argo CD's health checks beside it).
    names = sorted(str(p.relative_to(reference)) for p in reference.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert any(name.startswith("argocd/") for name in names), names
    _matching, mismatch, errors = filecmp.cmpfiles(reference, out, names, shallow=False)
    assert not mismatch and not errors, (mismatch, errors)

    # Apply mode, as AWX's Kubernetes bearer-token credential injects it, twice.
    plane = ControlPlane(tmp_path / "control-plane", build())
    try:
        start_with_crds(plane)
        ca = plane.workdir / "certs" / "apiserver.crt"
        credential = {"K8S_AUTH_HOST": plane.server, "K8S_AUTH_API_KEY": plane.admin_token,
                      "K8S_AUTH_VERIFY_SSL": "True", "K8S_AUTH_SSL_CA_CERT": "/runner/ca.crt"}
        recaps = []
        for _attempt in ("first", "second"):
            apply = _run_in_ee("ansible-playbook", "-i", inventory, "-i", "localhost,", "--limit", "localhost",
                               "virtinfra.hyperconverged.site", "-e", "site_platform_version=1.34",
                               env=credential, volumes=(f"{ca}:/runner/ca.crt:ro",))
            shown = apply.stdout + apply.stderr
            assert plane.admin_token not in shown
            _checked(apply)
            assert "apply mode (standalone): " in apply.stdout, apply.stdout[-3000:]
            recaps.append(next(line for line in apply.stdout.splitlines() if line.startswith("localhost ")))
        assert "changed=0" not in recaps[0] and "changed=0" in recaps[1], recaps
        kubevirt = plane.kubectl_run("get", "kubevirts.kubevirt.io", "-A", "-o", "name")
        assert "kubevirt" in kubevirt.stdout
    finally:
        plane.stop()
