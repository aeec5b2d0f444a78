# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import AUTH_ARGUMENT_SPEC, connect


def test_kubernetes_core_options_and_their_environment_variables():
    # The names and K8S_AUTH_* variables kubernetes.core users bring (kubernetes.core plugins/module_utils/args_common.py).
    expected = {"client_cert": "K8S_AUTH_CERT_FILE", "client_key": "K8S_AUTH_KEY_FILE", "proxy": "K8S_AUTH_PROXY",
                "no_proxy": "K8S_AUTH_NO_PROXY", "impersonate_user": "K8S_AUTH_IMPERSONATE_USER",
                "impersonate_groups": "K8S_AUTH_IMPERSONATE_GROUPS", "kubeconfig": "K8S_AUTH_KUBECONFIG"}
    for option, variable in expected.items():
        assert AUTH_ARGUMENT_SPEC[option]["fallback"][1] == [variable], option
    assert AUTH_ARGUMENT_SPEC["api_key"]["no_log"] and AUTH_ARGUMENT_SPEC["kubeconfig"]["no_log"]


def test_connect_hands_every_option_to_the_connection(tmp_path):
    connection = connect({"host": "https://127.0.0.1:6443", "api_key": "t", "client_cert": "/c.crt",
                          "client_key": "/c.key", "proxy": "http://proxy:3128", "no_proxy": "127.0.0.1",
                          "impersonate_user": "ops", "impersonate_groups": ["a"], "retries": 0,
                          "request_timeout": 7, "timeout": 60})
    configuration = connection._configuration
    assert (configuration.cert_file, configuration.key_file) == ("/c.crt", "/c.key")
    assert (configuration.proxy, configuration.no_proxy) == ("http://proxy:3128", "127.0.0.1")
    assert connection.retries == 0 and connection.request_timeout == 7
