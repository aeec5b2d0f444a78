# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Admission webhooks the test API server really calls: an HTTPS server that answers AdmissionReviews with a test's
decision, and a listener that accepts connections and never answers (a hung webhook). Both listen on loopback and
are closed by their context manager; the webhook configurations pointing at them are deleted with them."""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import pathlib
import socket
import ssl
import subprocess
import threading
import typing as t

Decide = t.Callable[[dict[str, t.Any]], tuple[bool, str]]   # AdmissionRequest -> (allowed, message)


def _certificate(directory: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    cert, key = directory / "webhook.crt", directory / "webhook.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class AdmissionServer:
    """HTTPS on 127.0.0.1; ``decide`` sees each AdmissionRequest (requests are kept in ``seen``)."""

    def __init__(self, directory: pathlib.Path, decide: Decide) -> None:
        self.cert, self.key = _certificate(directory)
        self.decide = decide
        self.seen: list[dict[str, t.Any]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                request = review["request"]
                server.seen.append(request)
                allowed, message = server.decide(request)
                answer = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                          "response": {"uid": request["uid"], "allowed": allowed,
                                       **({} if allowed else {"status": {"code": 403, "message": message}})}}
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: t.Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(self.cert), str(self.key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.cert.read_bytes()).decode()

    def __enter__(self) -> AdmissionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)


class HungListener:
    """Accepts TCP connections on 127.0.0.1 and never answers: the TLS handshake of each webhook call hangs until
    the API server's timeout for the webhook. ``accepted`` counts the calls."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(128)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        self._connections: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        self.socket.settimeout(0.2)
        while not self._stop.is_set():
            try:
                connection, _address = self.socket.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self._connections.append(connection)

    def __enter__(self) -> HungListener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for connection in self._connections:
            with contextlib.suppress(OSError):
                connection.close()
        self.socket.close()


def validating_webhook(plane: t.Any, name: str, port: int, namespace: str, *, resources: list[str],
                       operations: list[str], ca_bundle: str = "", timeout: int = 10) -> t.ContextManager[None]:
    """A ValidatingWebhookConfiguration for ``resources`` in ``namespace`` only (other tests share the server),
    deleted on exit."""
    webhook: dict[str, t.Any] = {
        "name": f"{name}.test.virtinfra.io", "admissionReviewVersions": ["v1"], "sideEffects": "None",
        "failurePolicy": "Fail", "timeoutSeconds": timeout,
        "clientConfig": {"url": f"https://127.0.0.1:{port}/"},
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": operations, "resources": resources,
                   "scope": "Namespaced"}],
    }
    if ca_bundle:
        webhook["clientConfig"]["caBundle"] = ca_bundle
    configuration_name = f"{name}-{namespace}"
    configuration = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                     "metadata": {"name": configuration_name}, "webhooks": [webhook]}

    @contextlib.contextmanager
    def installed() -> t.Iterator[None]:
        plane.kubectl_run("create", "-f", "-", input=json.dumps(configuration))
        try:
            yield
        finally:
            plane.kubectl_run("delete", "validatingwebhookconfiguration", configuration_name, "--ignore-not-found")

    return installed()
