# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import trustme

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import AUTH_ARGUMENT_SPEC, connect
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.transport import Proxied


def test_kubernetes_core_options_and_their_environment_variables():
    # The names and K8S_AUTH_* variables kubernetes.core users bring (kubernetes.core plugins/module_utils/args_common.py).
    expected = {"client_cert": "K8S_AUTH_CERT_FILE", "client_key": "K8S_AUTH_KEY_FILE", "proxy": "K8S_AUTH_PROXY",
                "no_proxy": "K8S_AUTH_NO_PROXY", "impersonate_user": "K8S_AUTH_IMPERSONATE_USER",
                "impersonate_groups": "K8S_AUTH_IMPERSONATE_GROUPS", "kubeconfig": "K8S_AUTH_KUBECONFIG"}
    for option, variable in expected.items():
        assert AUTH_ARGUMENT_SPEC[option]["fallback"][1] == [variable], option
    assert AUTH_ARGUMENT_SPEC["api_key"]["no_log"] and AUTH_ARGUMENT_SPEC["kubeconfig"]["no_log"]


def test_connect_hands_every_option_to_the_connection(tmp_path):
    ca = trustme.CA()
    issued = ca.issue_cert("ops@example.com")
    cert, key = tmp_path / "c.crt", tmp_path / "c.key"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    connection = connect({"host": "https://127.0.0.1:6443", "api_key": "t", "client_cert": str(cert),
                          "client_key": str(key), "proxy": "http://proxy:3128", "no_proxy": "10.0.0.0/8",
                          "impersonate_user": "ops", "impersonate_groups": ["a"], "retries": 0,
                          "request_timeout": 7, "timeout": 60})
    endpoint = connection.endpoint
    assert (endpoint.cert_file, endpoint.key_file) == (str(cert), str(key))
    assert endpoint.proxy == "http://proxy:3128" and endpoint.authorization == "Bearer t"
    assert isinstance(connection.transport, Proxied)   # 127.0.0.1 is not in no_proxy
    assert connection.retries == 0 and connection.request_timeout == 7


def test_from_environment_gives_what_the_module_gets_from_the_same_variables(monkeypatch):
    # The module's own validation (Ansible's ArgumentSpecValidator, env_fallback reading os.environ) is the reference.
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import from_environment

    environ = {"K8S_AUTH_HOST": "https://api:6443", "K8S_AUTH_API_KEY": "secret", "K8S_AUTH_VERIFY_SSL": "no",
               "K8S_AUTH_IMPERSONATE_GROUPS": "a, b", "K8S_AUTH_CONTEXT": "ignored-given-wins",
               "K8S_AUTH_NO_PROXY": "10.0.0.0/8"}
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    given = {"context": "mine", "kubeconfig": None}
    module = ArgumentSpecValidator(AUTH_ARGUMENT_SPEC).validate(dict(given)).validated_parameters
    ours = from_environment(given, environ)
    assert ours == {k: module[k] for k in ours}
    assert ours["validate_certs"] is False and ours["impersonate_groups"] == ["a", " b"] and ours["context"] == "mine"
