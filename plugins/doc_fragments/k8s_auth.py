# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  kubeconfig:
    description:
      - Path to a kubeconfig file (or several, separated by V(:), merged as kubectl merges them), or the kubeconfig as
        a dictionary. Defaults to C(K8S_AUTH_KUBECONFIG), then C(KUBECONFIG), then C(~/.kube/config).
      - A user whose credentials a program gives (C(exec), C(auth-provider)) is loaded with the kubernetes Python
        client, which runs the program and renews what it gives; every other user is read without it. The user's
        impersonation fields (C(as), C(as-uid), C(as-groups), C(as-user-extra)) are sent as kubectl sends them, unless
        O(impersonate_user) or O(impersonate_groups) is given.
      - Without O(kubeconfig), O(host) and any kubeconfig file, a job in a pod (an AWX container group, an execution
        environment in the cluster) connects with the pod's service account, as kubectl does
        (C(KUBERNETES_SERVICE_HOST), C(KUBERNETES_SERVICE_PORT), the token and CA under
        C(/var/run/secrets/kubernetes.io/serviceaccount); the token is read again as it is renewed).
      - The result's C(connection) says which source won and which proxy, if any (shown at C(-v)).
    type: raw
  context:
    description: Kubeconfig context. Defaults to C(K8S_AUTH_CONTEXT), then the current context.
    type: str
  host:
    description: API server URL, overriding the kubeconfig. Defaults to C(K8S_AUTH_HOST).
    type: str
  api_key:
    description: Bearer token, overriding the kubeconfig. Defaults to C(K8S_AUTH_API_KEY).
    type: str
  validate_certs:
    description: Verify the API server certificate. Defaults to C(K8S_AUTH_VERIFY_SSL), then the kubeconfig.
    type: bool
    aliases: [verify_ssl]
  ca_cert:
    description: CA bundle to verify the API server with. Defaults to C(K8S_AUTH_SSL_CA_CERT).
    type: path
  client_cert:
    description: Client certificate to authenticate with, overriding the kubeconfig. Defaults to C(K8S_AUTH_CERT_FILE).
    type: path
    aliases: [cert_file]
  client_key:
    description: Key of O(client_cert). Defaults to C(K8S_AUTH_KEY_FILE).
    type: path
    aliases: [key_file]
  proxy:
    description:
      - HTTP(S) or SOCKS proxy URL for the API server's requests, credentials in the URL sent as Proxy-Authorization.
        Defaults to C(K8S_AUTH_PROXY), then the kubeconfig cluster's C(proxy-url), then the environment as kubectl
        reads it (C(HTTPS_PROXY) or C(HTTP_PROXY) by the server's scheme, upper case before lower case, with
        C(NO_PROXY); a server on localhost or a loopback address is never proxied from the environment).
      - A proxy that refuses the tunnel is named with its answer and not asked again.
    type: str
  no_proxy:
    description:
      - Comma-separated hosts, domains and CIDRs reached without a proxy, by Go's rules as kubectl applies C(NO_PROXY)
        (C(*); an address or CIDR; C(example.com) for itself and its subdomains, C(.example.com) for its subdomains
        only; any of them with C(:port)). Defaults to C(K8S_AUTH_NO_PROXY); applies on top of C(NO_PROXY).
    type: str
  impersonate_user:
    description: User to act as (Kubernetes impersonation; the credential needs the C(impersonate) verb). Defaults to
      C(K8S_AUTH_IMPERSONATE_USER).
    type: str
  impersonate_groups:
    description: Groups to act as, with O(impersonate_user). Defaults to C(K8S_AUTH_IMPERSONATE_GROUPS) (comma-separated).
    type: list
    elements: str
  request_timeout:
    description: Seconds for one HTTP request.
    type: int
    default: 30
  retries:
    description:
      - Retries of a request that failed with 409, 429, 5xx or a connection error (exponential backoff,
        C(Retry-After) honoured). Answers a retry cannot change (400, 401, 403, 404, 405, 415, 422) and TLS
        verification failures are never retried.
    type: int
    default: 5
  timeout:
    description:
      - Seconds the whole call may take, all requests and retries included; when they run out the call fails, saying
        what it was doing and what it had written. A server that accepts connections and never answers is given up
        on after at most O(request_timeout) x (O(retries) + 1) plus backoff, or this limit if it comes first.
    type: int
    default: 900
requirements:
  - urllib3 (the HTTP client through a proxy, checked for every call; the kubernetes Python client brings it)
  - kubernetes (the Python client, for kubeconfig users with C(exec) or C(auth-provider) credentials)
"""

    # Where a cluster module's call runs (plugins/plugin_utils/_cluster_action.py).
    CALL = r"""
attributes:
  action:
    support: full
    description:
      - An action plugin. On a local connection, without become or async, and with the controller's interpreter
        (unset, C(auto), or the same binary in the same virtual environment), the call runs in the process Ansible
        starts for the task, with the task's C(environment); otherwise the module runs as any module does.
      - Arguments are checked on the controller first, so a call the check refuses never runs.
  async:
    support: full
    description: With C(async), the module runs as a module process.
"""
