# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Connection options shared by the cluster modules (documented in the k8s_auth doc fragment). PRIVATE."""

from __future__ import annotations

import os
import typing as t

from ansible.module_utils.basic import env_fallback
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from .._common.errors import FieldError, Refused
from .client import Connection

AUTH_ARGUMENT_SPEC: dict[str, dict[str, t.Any]] = dict(
    kubeconfig=dict(type="raw", no_log=True, fallback=(env_fallback, ["K8S_AUTH_KUBECONFIG"])),
    context=dict(type="str", fallback=(env_fallback, ["K8S_AUTH_CONTEXT"])),
    host=dict(type="str", fallback=(env_fallback, ["K8S_AUTH_HOST"])),
    api_key=dict(type="str", no_log=True, fallback=(env_fallback, ["K8S_AUTH_API_KEY"])),
    validate_certs=dict(type="bool", aliases=["verify_ssl"], fallback=(env_fallback, ["K8S_AUTH_VERIFY_SSL"])),
    ca_cert=dict(type="path", fallback=(env_fallback, ["K8S_AUTH_SSL_CA_CERT"])),
    # As kubernetes.core names them, with the same environment variables.
    client_cert=dict(type="path", aliases=["cert_file"], fallback=(env_fallback, ["K8S_AUTH_CERT_FILE"])),
    client_key=dict(type="path", aliases=["key_file"], no_log=False, fallback=(env_fallback, ["K8S_AUTH_KEY_FILE"])),
    proxy=dict(type="str", fallback=(env_fallback, ["K8S_AUTH_PROXY"])),
    no_proxy=dict(type="str", fallback=(env_fallback, ["K8S_AUTH_NO_PROXY"])),
    impersonate_user=dict(type="str", fallback=(env_fallback, ["K8S_AUTH_IMPERSONATE_USER"])),
    impersonate_groups=dict(type="list", elements="str", fallback=(env_fallback, ["K8S_AUTH_IMPERSONATE_GROUPS"])),
    request_timeout=dict(type="int", default=30),
    retries=dict(type="int", default=5),
    timeout=dict(type="int", default=900),
)


def without_fallbacks(argument_spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """A spec without its environment fallbacks: for a check made where that environment is not the one read."""
    return {name: {key: value for key, value in option.items() if key != "fallback"}
            for name, option in argument_spec.items()}


# typed() resolves the fallbacks from the environment it is given.
_VALIDATOR = ArgumentSpecValidator(without_fallbacks(AUTH_ARGUMENT_SPEC))


class OptionsRefused(Refused):
    """Connection options that Ansible's argument-spec validation refuses, each named by what the user set."""

    def __init__(self, problems: t.Sequence[FieldError]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(problem) for problem in self.problems))


def typed(given: t.Mapping[str, t.Any], environ: t.Mapping[str, str],
          origins: t.Mapping[str, str] | None = None) -> dict[str, t.Any]:
    """The parameters a module would get from ``given`` and its ``K8S_AUTH_*`` fallbacks in ``environ``, typed by
    Ansible's own argument-spec validation (ArgumentSpecValidator, as AnsibleModule types a module's), for a caller
    that connects without being the module: the site's read of the Nodes, the nodes inventory. ``origins`` names
    where a given option came from (``site_kubeconfig``); a fallback is named by its variable. A value the module
    would refuse (``K8S_AUTH_VERIFY_SSL=ture``) raises OptionsRefused naming it, never reads as false."""
    raw: dict[str, t.Any] = {}
    named: dict[str, str] = {}
    for name, spec in AUTH_ARGUMENT_SPEC.items():
        value, origin = given.get(name), (origins or {}).get(name, name)
        if value in (None, "") and "fallback" in spec:
            variable = next((var for var in spec["fallback"][1] if environ.get(var)), None)
            value, origin = (environ[variable], variable) if variable else (None, origin)
        if value not in (None, ""):
            raw[name], named[name] = value, origin
    problems = [FieldError(named[name], message)
                for name in raw for message in _VALIDATOR.validate({name: raw[name]}).error_messages]
    if problems:
        raise OptionsRefused(problems)
    return _VALIDATOR.validate(raw).validated_parameters


def connect(params: t.Mapping[str, t.Any]) -> Connection:
    kubeconfig = params.get("kubeconfig")
    if isinstance(kubeconfig, str):
        kubeconfig = os.path.expanduser(kubeconfig)
    return Connection(kubeconfig=kubeconfig, context=params.get("context"), host=params.get("host"),
                      api_key=params.get("api_key"), validate_certs=params.get("validate_certs"),
                      client_cert=params.get("client_cert"), client_key=params.get("client_key"),
                      proxy=params.get("proxy"), no_proxy=params.get("no_proxy"),
                      impersonate_user=params.get("impersonate_user"),
                      impersonate_groups=params.get("impersonate_groups") or (),
                      ca_cert=params.get("ca_cert"), request_timeout=float(params.get("request_timeout") or 30),
                      retries=_int_or(params.get("retries"), 5), timeout=float(params.get("timeout") or 900))


def _int_or(value: t.Any, default: int) -> int:
    return default if value is None else int(value)
