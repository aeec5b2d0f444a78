# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest
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


def test_typed_gives_what_the_module_gets_from_the_same_variables(monkeypatch):
    # The module's own validation (Ansible's ArgumentSpecValidator, env_fallback reading os.environ) is the reference.
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import typed

    environ = {"K8S_AUTH_HOST": "https://api:6443", "K8S_AUTH_API_KEY": "secret", "K8S_AUTH_VERIFY_SSL": "no",
               "K8S_AUTH_IMPERSONATE_GROUPS": "a, b", "K8S_AUTH_CONTEXT": "ignored-given-wins",
               "K8S_AUTH_NO_PROXY": "10.0.0.0/8"}
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    given = {"context": "mine", "kubeconfig": None}
    module = ArgumentSpecValidator(AUTH_ARGUMENT_SPEC).validate(dict(given)).validated_parameters
    ours = typed(given, environ)
    assert ours == {k: module[k] for k in ours}
    assert ours["validate_certs"] is False and ours["impersonate_groups"] == ["a", " b"] and ours["context"] == "mine"


@pytest.mark.parametrize("variable, value", [
    ("K8S_AUTH_VERIFY_SSL", "ture"), ("K8S_AUTH_VERIFY_SSL", "flase"), ("K8S_AUTH_VERIFY_SSL", "2"),
    ("K8S_AUTH_VERIFY_SSL", "disabled"),
])
def test_a_value_the_module_refuses_is_refused_naming_the_variable_never_read_as_false(monkeypatch, variable, value):
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import OptionsRefused, typed

    monkeypatch.setenv(variable, value)
    # The premise: the module's own argument spec refuses it.
    assert ArgumentSpecValidator(AUTH_ARGUMENT_SPEC).validate({}).error_messages
    with pytest.raises(OptionsRefused) as caught:
        typed({}, {variable: value})
    assert [problem.path for problem in caught.value.problems] == [variable]
    assert "not a valid boolean" in str(caught.value)


def test_every_refused_value_is_named_at_once_by_where_it_was_set():
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import OptionsRefused, typed

    environ = {"K8S_AUTH_VERIFY_SSL": "ture", "K8S_AUTH_HOST": "https://api:6443"}
    with pytest.raises(OptionsRefused) as caught:
        typed({"retries": "1.5", "request_timeout": "soon"}, environ,
              {"retries": "nodes.yml: retries", "request_timeout": "nodes.yml: request_timeout"})
    assert sorted(problem.path for problem in caught.value.problems) == [
        "K8S_AUTH_VERIFY_SSL", "nodes.yml: request_timeout", "nodes.yml: retries"]


def test_a_secret_that_is_refused_is_never_printed():
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import OptionsRefused, typed

    with pytest.raises(OptionsRefused) as caught:
        typed({"api_key": ["s3cr3t-token"], "validate_certs": "ture"}, {})
    assert "s3cr3t-token" not in str(caught.value)
