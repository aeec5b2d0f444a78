# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hostpath-provisioner: the single HostPathProvisioner CR, its workload placement and one StorageClass per pool.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import typing as t

from .common import Problems, check_keys, is_control_plane, path, reference, selector_matches

CSI_PROVISIONER = "kubevirt.io.hostpath-provisioner"
KEYS = frozenset(("provisioner", "provisioners"))
PROVISIONER_KEYS = frozenset(("name", "state", "storage_pools", "path_config", "storage_class", "default", "volume_binding_mode",
                              "image_pull_policy"))
POOL_KEYS = frozenset(("name", "path", "pvc_template", "snapshot_provider", "storage_class", "default"))


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    """Unknown keys in the provisioner settings and their storage pools."""
    configs = spec.get("provisioners")
    named = [(path("provisioners", i), c) for i, c in enumerate(configs)] if isinstance(configs, list) else [
        ("provisioner", spec.get("provisioner"))]
    for where, config in named:
        check_keys(problems, where, config, PROVISIONER_KEYS)
        pools = config.get("storage_pools") if isinstance(config, dict) else None
        for index, pool in enumerate(pools if isinstance(pools, list) else []):
            check_keys(problems, path(where, "storage_pools", index), pool, POOL_KEYS)


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    problems = Problems("hostpath-provisioner")
    provisioners = spec.get("provisioners")
    if provisioners is None:
        provisioners = [spec.get("provisioner") or {}]
    if len(provisioners) != 1:
        problems.error("provisioners", f"there should be a single hostpath provisioner, {len(provisioners)} given")
    config = provisioners[0] if provisioners else {}
    pools = config.get("storage_pools")
    path_config = config.get("path_config")
    if pools and path_config:
        problems.error("provisioner", "pathConfig and storage pools cannot be both set")
    elif not pools and not path_config:
        problems.error("provisioner", "either pathConfig or storage pools must be set")
    if path_config is not None and not (path_config or {}).get("path"):
        problems.error("provisioner.path_config.path", "pathconfig path must be set")
    _check_pools(problems, pools or [])
    binding = config.get("volume_binding_mode", "WaitForFirstConsumer")
    if binding not in ("WaitForFirstConsumer", "Immediate"):
        problems.error("provisioner.volume_binding_mode", "must be WaitForFirstConsumer or Immediate")
    elif binding == "Immediate":
        problems.warn("Immediate binding is deprecated for hostpath-provisioner: a volume may be created on a node "
                      "where the VM cannot run")
    state = config.get("state", "present")
    if state not in ("present", "absent"):
        problems.error("provisioner.state", "must be present or absent")
    problems.raise_if_any()
    workload = workload_placement(spec.get("hyperconverged"))
    cr_spec, objects, classes = _provisioner(config, pools, path_config, workload, binding)
    if sum(1 for c in classes if "annotations" in c["metadata"]) > 1:
        problems.error("provisioner.storage_pools", "only one StorageClass can be the cluster default")
        problems.raise_if_any()
    # A pool backed by a pvcTemplate is a PVC per node mounted at its path: no host directory to prepare.
    directories = [p["path"] for p in pools if not p.get("pvc_template")] if pools else [cr_spec["pathConfig"]["path"]]
    directories = [d for d in directories if str(d).startswith("/")]
    volume_roots = [volume_root(p["name"], p["path"]) for p in pools] if pools else \
        [volume_root("legacy", cr_spec["pathConfig"]["path"])]
    claims = pool_claims(pools or [], workload, spec.get("nodes"), problems)
    names = derived_names(pools or [{"name": "", "path": cr_spec["pathConfig"]["path"]}], claims)
    if state == "absent":
        # The CR and classes go; the host directories and the volumes in them stay (they hold VM disks).
        problems.warn("provisioner.state absent: the HostPathProvisioner and its StorageClasses are deleted; the "
                      f"host directories ({', '.join(directories) or 'none'}) and the volumes in them are kept")
        return {"objects": [], "delete": [reference(o) for o in objects + classes],
                "directories": [], "volume_roots": volume_roots, "pool_claims": claims, "names": names,
                "warnings": problems.warnings}
    return {"objects": objects + classes, "directories": directories, "volume_roots": volume_roots,
            "pool_claims": claims, "names": names, "warnings": problems.warnings}


def _check_pools(problems: Problems, pools: t.Sequence[t.Mapping[str, t.Any]]) -> None:
    """The operator's storagePools rules: names and paths set, within their lengths and unique; reflink snapshots
    only; a pvcTemplate as the API server will take it."""
    names: dict[str, int] = {}
    paths: dict[str, int] = {}
    for index, pool in enumerate(pools):
        where = path("provisioner.storage_pools", index)
        name, pool_path = str(pool.get("name") or ""), str(pool.get("path") or "")
        if not name:
            problems.error(path(where, "name"), "storagePool.name cannot be blank")
        elif len(name.encode()) > 50:
            problems.error(path(where, "name"), "storagePool.name cannot be longer than 50 bytes")
        if not pool_path:
            problems.error(path(where, "path"), "storagePool.path cannot be blank")
        elif len(pool_path.encode()) > 255:
            problems.error(path(where, "path"), "storagePool.path cannot be longer than 255 bytes")
        elif not pool_path.startswith("/"):
            # The operator admits it; the collection prepares host directories by absolute path only.
            problems.warn(f"{path(where, 'path')}: {pool_path!r} is relative: the operator accepts it, but no host "
                          "directory is prepared for it (give an absolute path to have the storage role create it)")
        if name in names:
            problems.error(path(where, "name"), f"storagePool.name {name} duplicates storage_pools[{names[name]}]")
        if pool_path in paths:
            problems.error(path(where, "path"), f"storagePool.path {pool_path} duplicates "
                                                f"storage_pools[{paths[pool_path]}]")
        names.setdefault(name, index)
        paths.setdefault(pool_path, index)
        if pool.get("snapshot_provider") not in (None, "reflink"):
            problems.error(path(where, "snapshot_provider"), "only reflink is supported")
        if pool.get("pvc_template") is not None:
            _check_pvc_template(problems, path(where, "pvc_template"), pool["pvc_template"], pools)


def _provisioner(config: t.Mapping[str, t.Any], pools: t.Any, path_config: t.Any, workload: dict[str, t.Any],
                 binding: str) -> tuple[dict[str, t.Any], list[dict[str, t.Any]], list[dict[str, t.Any]]]:
    """The HostPathProvisioner (its spec, as the CR) and a StorageClass per pool (or one for the legacy path)."""
    cr_spec: dict[str, t.Any] = {"imagePullPolicy": config.get("image_pull_policy", "IfNotPresent")}
    if pools:
        cr_spec["storagePools"] = [_pool(p) for p in pools]
    else:
        settings: dict[str, t.Any] = path_config or {}  # validated above: set whenever there are no pools
        cr_spec["pathConfig"] = {"path": settings["path"], "useNamingPrefix": bool(settings.get("naming_prefix"))}
    if workload:
        cr_spec["workload"] = workload
    objects: list[dict[str, t.Any]] = [{"apiVersion": "hostpathprovisioner.kubevirt.io/v1beta1",
                                        "kind": "HostPathProvisioner",
                                        "metadata": {"name": config.get("name", "hostpath-provisioner")},
                                        "spec": cr_spec}]
    classes = []
    if pools:
        for pool in pools:
            classes.append(storage_class(pool.get("storage_class", f"hostpath-csi-{pool['name']}"), CSI_PROVISIONER,
                                         binding, {"storagePool": pool["name"]}, bool(pool.get("default"))))
    else:
        classes.append(storage_class(config.get("storage_class", "hostpath-csi"), CSI_PROVISIONER, binding, {},
                                     bool(config.get("default"))))
    return cr_spec, objects, classes


MAX_NAME_LENGTH = 63


def fnv1a_32(text: str) -> str:
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def name_with_max_length(base: str, suffix: str, max_length: int = MAX_NAME_LENGTH) -> str:
    """The operator's getResourceNameWithMaxLength: ``base-suffix``, or, when longer, the base cut short with an
    FNV-1a hash of the base between it and the suffix (or of the whole name, when the suffix alone is too long)."""
    name = f"{base}-{suffix}"
    if len(name) <= max_length:
        return name
    base_length = max_length - 10 - len(suffix)
    if base_length < 0:
        short = f"{base[:min(len(base), max(0, max_length - 9))]}-{fnv1a_32(name)}"
        return short[:max_length]
    return f"{base[:base_length]}-{fnv1a_32(base)}-{suffix}"


def per_node_name(pool: str, node: str) -> str:
    """A pvcTemplate pool's per-node PVC and Deployment name: ``hpp-pool`` is the base and ``<pool>-<node>`` the
    suffix, so a name over 63 characters is always ``hpp-pool-<hash of the whole name>``
    (hostpath-provisioner-operator, pkg/controller/hostpathprovisioner/storagepool.go)."""
    return name_with_max_length("hpp-pool", f"{pool}-{node}")


def derived_names(pools: t.Sequence[t.Mapping[str, t.Any]], claims: t.Sequence[t.Mapping[str, t.Any]]
                  ) -> dict[str, t.Any]:
    """What the operator names after the pools: its DaemonSets, each pool's mount, storage-pool label, CSI paths and
    per-node claims (a pathConfig CR is the CSI pool ``legacy``, mounted as ``csi-data-dir``)."""
    entries = []
    for pool in pools:
        base = str(pool.get("path") or "").rstrip("/") or "/"
        entries.append({
            "name": pool.get("name") or "legacy",
            "storage_pool_label": name_with_max_length(str(pool.get("name") or "legacy"), "hpp"),
            "mount": name_with_max_length(str(pool.get("name") or "csi"), "data-dir"),
            "csi_path": f"{base}/csi" if pool.get("path") else "",
            "snapshots_path": f"{base}/csi/snapshots" if pool.get("path") else "",
            "claims": [c["name"] for c in claims if c["pool"] == pool.get("name")],
        })
    return {"daemonset": "hostpath-provisioner-csi", "legacy_daemonset": "hostpath-provisioner", "pools": entries}


def volume_root(pool: str, pool_path: str) -> dict[str, str]:
    """Where the CSI driver puts a pool's volumes and snapshots (a csi/ subdirectory keeps them apart from legacy
    provisioner volumes)."""
    base = pool_path.rstrip("/") or "/"
    return {"pool": pool, "path": pool_path, "volumes": f"{base}/csi", "snapshots": f"{base}/csi/snapshots"}


def pool_claims(pools: t.Sequence[t.Mapping[str, t.Any]], workload: t.Mapping[str, t.Any], nodes: t.Any,
                problems: Problems) -> list[dict[str, t.Any]]:
    """The PVCs the operator creates for pvcTemplate pools: one per node the HPP pods run on."""
    if not isinstance(nodes, list):
        return []
    selector = workload.get("nodeSelector") or {}
    selected = [n for n in nodes if isinstance(n, dict) and selector_matches(selector, n.get("labels") or {})
                and (selector or not is_control_plane(n))]
    claims = []
    for pool in pools:
        if not pool.get("pvc_template"):
            continue
        size = ((pool["pvc_template"].get("resources") or {}).get("requests") or {}).get("storage")
        for node in selected:
            name = per_node_name(str(pool["name"]), str(node.get("name")))
            claims.append({"pool": pool["name"], "node": node.get("name"), "name": name, "storage": size,
                           "mount": pool["path"]})
    return claims


def _check_pvc_template(problems: Problems, where: str, template: t.Any,
                        pools: t.Sequence[t.Mapping[str, t.Any]]) -> None:
    if not isinstance(template, dict):
        problems.error(where, "must be a PersistentVolumeClaim spec")
        return
    if not ((template.get("resources") or {}).get("requests") or {}).get("storage"):
        problems.error(path(where, "resources", "requests", "storage"), "the size of each node's volume is required")
    if not template.get("accessModes"):
        # Deliberately earlier than the operator, which admits the pool: the API server refuses each PVC it makes.
        problems.error(path(where, "accessModes"), "required: the operator admits the pool, but the API server refuses "
                                                   "each per-node PersistentVolumeClaim it creates from it (spec."
                                                   "accessModes: Required value: at least 1 access mode is required) "
                                                   "and the pool never becomes ready; ReadWriteOnce fits (one node "
                                                   "uses each volume)")
    own_classes = {p.get("storage_class", f"hostpath-csi-{p.get('name')}") for p in pools}
    if template.get("storageClassName") in own_classes:
        problems.error(path(where, "storageClassName"), "cannot be a class of this hostpath-provisioner (the pool "
                                                        "would need itself)")
    elif not template.get("storageClassName"):
        problems.warn(f"{where}: no storageClassName, so the pool volumes use the cluster's default StorageClass")


def _pool(pool: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    entry: dict[str, t.Any] = {"name": pool["name"], "path": pool["path"]}
    if pool.get("pvc_template"):
        entry["pvcTemplate"] = copy.deepcopy(pool["pvc_template"])
    if pool.get("snapshot_provider"):
        entry["snapshotProvider"] = pool["snapshot_provider"]
    return entry


def workload_placement(hyperconverged: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """HPP pods must run where VMs run: the HyperConverged workloads placement (v1beta1 spec.workloads)."""
    placement = (((hyperconverged or {}).get("spec") or {}).get("workloads") or {}).get("nodePlacement") or {}
    return {k: copy.deepcopy(placement[k]) for k in ("nodeSelector", "tolerations", "affinity") if placement.get(k)}


def storage_class(name: str, provisioner: str, binding: str, parameters: dict[str, str],
                  default: bool) -> dict[str, t.Any]:
    metadata: dict[str, t.Any] = {"name": name}
    if default:
        metadata["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    result: dict[str, t.Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": metadata,
                                "provisioner": provisioner, "reclaimPolicy": "Delete",
                                "volumeBindingMode": binding}
    if parameters:
        result["parameters"] = parameters
    return result
