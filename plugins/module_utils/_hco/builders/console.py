# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenShift console plugin: the plugin and apiserver-proxy Deployments and the ``nginx-conf`` ConfigMap.

These are the console objects that depend on the HyperConverged (infra placement, TLS profile, topology);
the ConsolePlugin, Services and ServiceAccounts do not and are not rendered. PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..tls import go_version_id, source_ciphers, to_iana
from ..view import HCView
from . import common

PLUGIN = "kubevirt-console-plugin"
PROXY = "kubevirt-apiserver-proxy"
_PROTOCOLS = {
    "VersionTLS10": "TLSv1 TLSv1.1 TLSv1.2 TLSv1.3",
    "VersionTLS11": "TLSv1.1 TLSv1.2 TLSv1.3",
    "VersionTLS12": "TLSv1.2 TLSv1.3",
    "VersionTLS13": "TLSv1.3",
}
_NO_CACHE = (
    "\t\t\t  add_header Cache-Control 'no-cache, no-store, must-revalidate, proxy-revalidate, max-age=0';\n"
    "\t\t\t  add_header Pragma 'no-cache';\n"
    "\t\t\t  add_header Expires '0';\n"
)


def enabled(view: HCView) -> bool:
    return view.facts.is_openshift and bool(view.env.get("KV_CONSOLE_PLUGIN_IMAGE")) and bool(
        view.env.get("KV_CONSOLE_PROXY_IMAGE"))


def nginx_conf(view: HCView) -> str:
    ciphers, minimum = source_ciphers(view.tls_profile, view.profile.tls)
    lines = [
        "error_log /dev/stdout info;\n",
        "events {}\n",
        "http {\n",
        "\taccess_log         /dev/stdout;\n",
        "\tinclude            /etc/nginx/mime.types;\n",
        "\tdefault_type       application/octet-stream;\n",
        "\tkeepalive_timeout  65;\n",
        "\tadd_header X-Content-Type-Options nosniff;\n",
        "\t\tserver {\n",
        "\t\t\tlisten              9443 ssl;\n",
        "\t\t\tlisten              [::]:9443 ssl;\n",
        "\t\t\tssl_certificate     /var/serving-cert/tls.crt;\n",
        "\t\t\tssl_certificate_key /var/serving-cert/tls.key;\n",
    ]
    if view.profile.console_tls:
        lines.append(f"\t\t\tssl_protocols       {_PROTOCOLS.get(minimum, _PROTOCOLS['VersionTLS12'])};\n")
        if minimum != "VersionTLS13" and ciphers:
            lines.append(f"\t\t\tssl_ciphers         {':'.join(ciphers)};\n")
        lines.append("\t\t\tssl_ecdh_curve SecP256r1MLKEM768:SecP384r1MLKEM1024:secp256r1:secp384r1;\n")
    lines += [
        "\t\t\troot                /usr/share/nginx/html;\n",
        "\n",
        "\t\t\t# Prevent caching for plugin-manifest.json and plugin-entry.js\n",
        "\t\t\t# to avoid \"Unexpected end of JSON input\" error\n",
        "\t\t\tlocation = /plugin-manifest.json {\n", _NO_CACHE, "\t\t\t}\n",
        "\t\t\tlocation = /plugin-entry.js {\n", _NO_CACHE, "\t\t\t}\n",
        "        }\n",
        "\t}\n",
    ]
    return "".join(lines)


def _proxy_args(view: HCView) -> list[str] | None:
    if not view.profile.console_tls:
        return None
    ciphers, minimum = source_ciphers(view.tls_profile, view.profile.tls)
    ids = [str(view.profile.tls.go_cipher_ids[n]) for n in to_iana(ciphers, view.profile.tls)
           if n in view.profile.tls.go_cipher_ids]
    args = []
    if minimum != "VersionTLS13" and ids:
        args.append("--tls-cipher-suites=" + ",".join(ids))
    args.append(f"--tls-min-version={go_version_id(minimum)}")
    return args


def _deployment(view: HCView, name: str, container: dict[str, t.Any], volumes: list[dict[str, t.Any]]
                ) -> dict[str, t.Any]:
    deployment = common.new_object(view, "apps/v1", "Deployment", name, name)
    pod_labels = common.labels(view, name)
    pod_spec: dict[str, t.Any] = {}
    if view.infra is not None:
        pod_spec.update(common.placement(view.infra))
    # HCO's default applies whenever the infra placement brings no affinity (nil pointer), with or without a
    # nodeSelector or tolerations.
    if "affinity" not in pod_spec and view.facts.infrastructure_highly_available:
        pod_spec["affinity"] = common.pod_anti_affinity(name)
    pod_spec.update({
        "containers": [container],
        "priorityClassName": "kubevirt-cluster-critical",
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "serviceAccountName": name if view.profile.console_service_accounts else "default",
        "volumes": volumes,
    })
    deployment["spec"] = {
        "replicas": 2 if view.facts.infrastructure_highly_available else 1,
        "selector": {"matchLabels": dict(pod_labels)},
        "strategy": {"type": "RollingUpdate"},
        "template": {
            "metadata": {"annotations": {"openshift.io/required-scc": "restricted-v2"}, "labels": pod_labels},
            "spec": pod_spec,
        },
    }
    return deployment


def _container(name: str, image: str, port: int, mounts: list[dict[str, t.Any]],
               read_only_root: bool, args: list[str] | None = None) -> dict[str, t.Any]:
    security: dict[str, t.Any] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
    if read_only_root:
        security["readOnlyRootFilesystem"] = True
    container: dict[str, t.Any] = {}
    if args:
        container["args"] = args
    container.update({
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "ports": [{"containerPort": port, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "10m", "memory": "100Mi"}},
        "securityContext": security,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": mounts,
    })
    return container


def build(view: HCView) -> list[dict[str, t.Any]]:
    proxy = _deployment(
        view, PROXY,
        _container(PROXY, view.env.get("KV_CONSOLE_PROXY_IMAGE"), 8080,
                   [{"mountPath": "/app/cert", "name": "console-proxy-serving-cert", "readOnly": True}],
                   read_only_root=view.profile.console_proxy_read_only_root, args=_proxy_args(view)),
        [{"name": "console-proxy-serving-cert",
          "secret": {"defaultMode": 420, "secretName": "console-proxy-serving-cert"}}],
    )
    plugin = _deployment(
        view, PLUGIN,
        _container(PLUGIN, view.env.get("KV_CONSOLE_PLUGIN_IMAGE"), 9443,
                   [{"mountPath": "/var/serving-cert", "name": "plugin-serving-cert", "readOnly": True},
                    {"mountPath": "/etc/nginx/nginx.conf", "name": "nginx-conf", "readOnly": True,
                     "subPath": "nginx.conf"}],
                   read_only_root=False),
        [{"name": "plugin-serving-cert", "secret": {"defaultMode": 420, "secretName": "plugin-serving-cert"}},
         {"configMap": {"name": "nginx-conf"}, "name": "nginx-conf"}],
    )
    config_map = common.new_object(view, "v1", "ConfigMap", "nginx-conf", PLUGIN)
    config_map["data"] = {"nginx.conf": nginx_conf(view)}
    return [proxy, plugin, config_map]
