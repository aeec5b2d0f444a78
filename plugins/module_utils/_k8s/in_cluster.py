# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pod's service account as the connection, when a job runs in the cluster with no kubeconfig (an AWX container
group, an execution environment in a pod). PRIVATE.

As client-go reads it (k8s.io/client-go rest/config.go, ``InClusterConfig``): the server from
``KUBERNETES_SERVICE_HOST`` and ``_PORT``, the token and CA from the service account's directory, the token read
again as it is renewed (kubelet rotates the projected token; client-go's ``NewCachedFileTokenSource`` re-reads it).
kubectl uses it only when no kubeconfig file is found (tools/clientcmd, ``DeferredLoadingClientConfig``); so does
this, and so does kubernetes.core when it is given no kubeconfig or host.
"""

from __future__ import annotations

import os
import typing as t

from .kubeconfig import Endpoint, KubeconfigError

ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def available(environ: t.Mapping[str, str]) -> bool:
    return bool(environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT")
                and os.path.isfile(os.path.join(ACCOUNT_DIR, "token")))


def endpoint(environ: t.Mapping[str, str]) -> tuple[Endpoint, t.Callable[[], str | None]]:
    """The service account's endpoint, and where to read its current Authorization header."""
    host, port = environ["KUBERNETES_SERVICE_HOST"], environ["KUBERNETES_SERVICE_PORT"]
    server = f"https://[{host}]:{port}" if ":" in host else f"https://{host}:{port}"
    ca_file = os.path.join(ACCOUNT_DIR, "ca.crt")

    def authorization() -> str | None:
        try:
            with open(os.path.join(ACCOUNT_DIR, "token"), encoding="utf-8") as stream:
                token = stream.read().strip()
        except OSError as exc:
            raise KubeconfigError(f"cannot read the service account token in {ACCOUNT_DIR}: {exc.strerror}") from None
        return f"Bearer {token}" if token else None

    authorization()   # an unreadable token is named now, before any request
    return (Endpoint(server=server, ca_file=ca_file if os.path.isfile(ca_file) else None,
                     source=f"in-cluster service account ({ACCOUNT_DIR}, KUBERNETES_SERVICE_HOST={host})"),
            authorization)
