#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: k8s_apply
short_description: Apply many Kubernetes objects at once with server-side apply, an honest check mode and a drift report
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Applies a list of objects in one call, one HTTP client and one discovery (two requests with aggregated discovery)
    for all of them, in dependency order (CustomResourceDefinitions, Namespaces, RBAC, configuration, workloads, then
    custom resources), with server-side apply and a dedicated field manager.
  - Before anything is written, every custom resource is validated against the live (or same-call) CRD schema and
    every object that would change is sent as a server-side dry run (C(dryRun=All)) with strict field validation.
    If any object is refused, nothing is written and every problem is returned with its object and field path.
  - An object that already holds every desired value, and whose fields owned by this field manager are all still
    desired, costs no request beyond one labelled list per kind; a second run with the same input reports no change
    and makes no write request.
  - Check mode is the server-side dry run itself, never a local guess. With C(--diff), RV(diff) holds the objects
    before and after (managedFields, status, resourceVersion, generation, uid and creationTimestamp removed) and
    RV(objects[].changes) the field-level changes as data.
  - "Drift: fields another actor changed since this module last applied the object (the input fingerprint stored in
    the C(hyperconverged.virtinfra.io/desired-hash) annotation is unchanged, or another field manager now owns the
    field). Counted per object, like HCO's C(kubevirt_hco_out_of_band_modifications_total)."
  - Every applied object is labelled C(hyperconverged.virtinfra.io/managed-by=virtinfra.hyperconverged).
  - "With O(apply_set), the objects form an apply set as the Kubernetes ApplySet convention (KEP-3659, the one
    C(kubectl apply --prune --applyset) uses) defines it: a parent ConfigMap named O(apply_set) in
    O(apply_set_namespace) (a ConfigMap rather than kubectl's default Secret, so an automation account needs no right
    to create Secrets) carries the label C(applyset.kubernetes.io/id) (C(applyset-<hash>-v1), computed as kubectl
    does) and the annotations C(applyset.kubernetes.io/tooling=virtinfra.hyperconverged/<version>),
    C(applyset.kubernetes.io/contains-group-kinds) and C(applyset.kubernetes.io/additional-namespaces); each member
    carries C(applyset.kubernetes.io/part-of=<id>). Before any member is written the parent records the union of
    what it held and this run's kinds and namespaces, so an interrupted run leaves nothing a later prune cannot find;
    after a prune it records only what is left. A ConfigMap of that name that is not such a parent, or the parent of
    another tool's apply set (kubectl's, for one), fails the task before anything is written and is left alone."
  - "O(prune) deletes members of the apply set that left O(objects), and only those: an object must carry both
    labels, B(and) this module's field manager must have applied its C(part-of) label, B(and) it must be of a kind and
    in a namespace the parent recorded. A copied manifest with our labels is left alone, with a warning. Namespaces
    and CustomResourceDefinitions are never pruned unless O(prune_namespaces), and then only when everything in them
    belongs to the apply set (the parent itself does not); RV(pruned[].contents) lists what went with them."
  - "Drift in O(drift=report) mode: fields another field manager set are left out of what is applied, at any depth
    (an item of an associative list stays, named by its keys, without the foreign fields; an atomic list is one unit),
    so a report run never changes them, and never removes a field this module owns as a side effect. When the input
    is unchanged since the last apply, every difference is someone else's edit: it is reported and nothing is written."
  - Secrets are compared by content (C(stringData) is folded into C(data)). Their values and any
    C(kubectl.kubernetes.io/last-applied-configuration) annotation are redacted in RV(diff), RV(objects) and the
    module's logged arguments, and they carry no content hash.
  - 409 (except server-side apply field conflicts), 429 and 5xx responses and connection failures are retried with
    exponential backoff. A 403 is reported as C(user X cannot VERB RESOURCE in NS).
requirements:
  - jsonpath-ng (only for O(wait_for[].jsonpath))
attributes:
  action_group:
    description: Use C(group/virtinfra.hyperconverged.cluster) in C(module_defaults) to set the credentials once.
    support: full
    membership:
      - virtinfra.hyperconverged.cluster
  check_mode:
    support: full
    description: Every change is predicted by a server-side dry run; nothing is written.
  diff_mode:
    support: full
    description: Returns before/after objects and field-level changes.
  idempotent:
    support: full
    description: A second run with the same input reports no change and sends no write request.
  platform:
    support: full
    platforms: posix
    description: Runs where it can reach the API server (usually C(localhost) or an execution environment).
options:
  objects:
    description:
      - The objects to apply (or to delete with O(state=absent), or to compare with O(state=observed)).
      - C(status) and server-maintained metadata in the input are ignored.
      - At least one of O(objects) and O(src) is required; with both, O(objects) come first.
    type: list
    elements: raw
  src:
    description:
      - Manifest files to apply as well, as C(kubectl apply -f) reads them, on the host that runs the module.
      - On a local connection (C(delegate_to=localhost), an execution environment) a relative path is looked up as
        Ansible looks up files for M(ansible.builtin.copy), in the role's C(files/) directory, then the playbook's
        C(files/) directory and the playbook's directory. On a remote host a path must be absolute. A relative path
        not found there is an error, never a path relative to the module's working directory.
      - A file holds YAML documents (C(.yaml), C(.yml)) or JSON (C(.json)); a document is one object, a list of
        objects or a C(List) kind with C(items). A directory gives its C(.yaml), C(.yml) and C(.json) files in name
        order, not recursively, skipping names that start with a dot.
      - A URL, a C(kustomization.yaml) or a file encrypted with Ansible Vault is refused with that reason (fetch the
        file first; pass a built kustomization, or a vaulted file through the P(ansible.builtin.file#lookup) lookup,
        as O(objects)).
      - Every file is read and parsed before anything else; a missing file, a directory without manifests or a
        parse error is reported with its file (and line), next to every other problem, and nothing is written.
      - YAML is read as kubectl reads it (go-yaml v2's scalars, tags and merge keys). A document may nest up to
        9,000 levels (kubectl reads up to 10,000; under Python 3.12, whose json module stops near 1,500, up to
        1,000); a deeper one is refused with its file.
      - For large sets this is also much faster than O(objects) from a lookup, which Ansible templates and copies
        object by object; see the ownership guide's figures.
      - Errors name an object from a file as C(src[N] <file>, document <M>).
    type: list
    elements: path
    version_added: 0.1.0
  state:
    description:
      - C(present) applies the objects. C(absent) deletes them. C(observed) changes nothing and reports, per object,
        the desired fields whose live value differs (for objects another operator owns, such as HCO's operands).
    type: str
    choices: [present, absent, observed]
    default: present
  drift:
    description:
      - C(revert) takes back fields another actor changed (force-applies them) and counts them in RV(reverted_total).
      - C(report) leaves them as they are, applies only the remaining changes and lists the drift.
    type: str
    choices: [revert, report]
    default: revert
  prune:
    description:
      - Delete objects of this O(apply_set) that are not in O(objects) (see the description for what counts as one
        of ours). Kinds searched are those in O(objects) plus O(prune_kinds). Requires O(apply_set).
    type: bool
    default: false
  prune_namespaces:
    description:
      - Also prune Namespaces and CustomResourceDefinitions that left O(objects), when nothing in them is foreign
        (objects the cluster creates in every namespace, events and objects owned by another object aside). A
        Namespace or CRD holding a foreign object fails the task before anything is written.
    type: bool
    default: false
  namespaces_created_earlier:
    description:
      - Namespaces that an earlier task of the same run creates. In check mode that task only predicted them, so an
        object in one of them cannot be dry-run; it is reported as deferred (RV(objects[].deferred)) without the
        warning an unknown missing namespace gets. The site playbook passes the namespaces of its prerequisites.
    type: list
    elements: str
    default: []
    version_added: 0.1.0
  adopt:
    description:
      - "With O(apply_set): take an object that already exists and is not a member of the apply set (a person
        created it, another tool, another apply set) into the set. It is then a member, and a later O(prune)
        deletes it when it leaves O(objects); RV(objects[].action) says C(adopted) for it, and its fields that
        other field managers set are taken over (server-side apply with force)."
      - Without it such an object fails the task before anything is written, naming the object and the field
        managers of its fields, so a name that collides with someone else's object never turns into data loss.
        The site playbook passes C(site_adopt).
      - An existing Namespace or CustomResourceDefinition that is not a member is never adopted, with or without
        this option, it is used as it is. It gets our field values but not the membership label, so prune never
        deletes it, and RV(objects[].membership) says C(shared). One that another apply set of this field manager
        created is not written at all (applying it without that set's labels would take them away) -
        RV(objects[].owner_apply_set) names that set.
      - Without O(apply_set), an existing object that this field manager has never applied is planned without
        force (as C(kubectl apply --server-side) without C(--force-conflicts)). A field that another field manager
        set to another value is a conflict, reported with its path before anything is written. With this option,
        such fields are taken over.
    type: bool
    default: false
    version_added: 0.1.0
  prune_kinds:
    description:
      - Extra kinds to search when pruning (a kind may have no desired object left). A kind the server does not
        serve gives a warning.
    type: list
    elements: dict
    default: []
    suboptions:
      apiVersion:
        description: API version, for example C(v1).
        type: str
        required: true
      kind:
        description: Kind, for example C(ConfigMap).
        type: str
        required: true
  apply_set:
    description:
      - Name of the set of objects this call manages, and of its parent ConfigMap (see the description); pruning never
        touches another set. There is no default, so two runs that prune must each name their set.
      - With O(state=absent), only members of this set (objects it created, see the description) are deleted. An
        object someone else made, or another set's, is kept and named in a warning, and so is a Namespace or CRD.
      - Ignored with O(state=observed).
    type: str
  apply_set_namespace:
    description:
      - Namespace of the apply set's parent ConfigMap. Defaults to O(namespace), else C(default); RV(apply_set) says
        which was used. It may be a Namespace among O(objects); the parent is then written right after it.
    type: str
  lock_timeout:
    description:
      - A run that writes or prunes an apply set holds a lock on it, the Lease C(<apply_set>-lock) in the parent's
        namespace, renewed while the run goes on and deleted at its end (a killed run's Lease is taken over after
        15 seconds without renewal). Another run on the same apply set waits up to this many seconds, then fails
        naming the holder (user, host, process, start time, AWX job) and writes nothing.
      - A run that changes nothing and check mode take no lock.
    type: int
    default: 120
  report:
    description:
      - C(changed) lists in RV(objects) only the objects that changed (or would change), drifted, are missing or were
        deferred; RV(counts) counts every object by action. A run over thousands of objects that changes nothing
        returns a few lines.
      - C(all) lists every object, unchanged ones included.
    type: str
    choices: [changed, all]
    default: changed
  concurrency:
    description:
      - How many requests of one step (reads, dry runs, writes of one dependency rank) are in flight at once. The
        API server's priority and fairness queues the rest; a C(429) answer is retried after its C(Retry-After).
      - The first failure stops the queue; RV(written) says exactly what was written before it.
      - The default, 16, keeps a distant API server busy without queueing at its fairness limits. Lower it for an
        API server that many clients share at once.
    type: int
    default: 16
  field_manager:
    description: Server-side apply field manager.
    type: str
    default: virtinfra.hyperconverged
  namespace:
    description: Namespace for namespaced objects that do not name one.
    type: str
  wait:
    description:
      - Wait until CustomResourceDefinitions written by this call are Established, and until the API server's
        discovery lists their kinds (it can lag behind the condition), before using those kinds; both within one
        O(wait_timeout).
    type: bool
    default: true
  wait_for:
    description:
      - Conditions to wait for after the writes (not in check mode). Each entry names an object and one of
        O(wait_for[].ready), a O(wait_for[].condition), or a O(wait_for[].jsonpath) with success and failure values.
      - A condition counts only when it is not older than the object's generation (its own C(observedGeneration),
        or the status's where the object reports one), so a condition left from before the write never ends the wait.
      - On a local connection (the usual C(delegate_to) C(localhost), an execution environment) the waits run on the
        controller after the module has written, one after the other within O(wait_timeout), and print what they
        wait for when each starts, whenever that changes and at least every 30 seconds; RV(waited) says how long
        each took. On other connections the module waits and prints nothing until it ends.
    type: list
    elements: dict
    default: []
    suboptions:
      apiVersion:
        description: API version of the object.
        type: str
        required: true
      kind:
        description: Kind of the object.
        type: str
        required: true
      name:
        description: Name of the object.
        type: str
        required: true
      namespace:
        description: Namespace of the object.
        type: str
      condition:
        description: A C(status.conditions) entry to wait for.
        type: dict
        suboptions:
          type:
            description: Condition type, for example C(Available).
            type: str
            required: true
          status:
            description: Expected status.
            type: str
            default: "True"
          reason:
            description: Expected reason, if any.
            type: str
      jsonpath:
        description: A JSONPath (kubectl style C({.status.phase}) accepted) whose value is compared.
        type: str
      success:
        description: Values of O(wait_for[].jsonpath) that end the wait successfully.
        type: list
        elements: raw
        default: []
      failure:
        description: Values of O(wait_for[].jsonpath) that fail the task at once.
        type: list
        elements: raw
        default: []
      ready:
        description:
          - Wait until the object is ready as its kind defines it. Deployment, DaemonSet and StatefulSet as
            C(kubectl rollout status) judges them (the controller has observed the generation; updated, ready and
            available counts meet the spec); a ClusterServiceVersion until its phase is C(Succeeded) (C(Failed)
            fails the task); a CustomResourceDefinition until C(Established); anything else until a fresh
            C(Available) (or, without one, C(Ready)) condition is C(True).
        type: bool
        default: false
  wait_timeout:
    description: Seconds to wait for all conditions together.
    type: int
    default: 300
notes:
  - Objects in a Namespace or of a kind created by the same call cannot be dry-run before that Namespace or
    CustomResourceDefinition exists. In check mode they are validated against the CRD schema only and reported with
    RV(objects[].deferred); in a real run the CRDs and Namespaces are written first, then those objects are dry-run
    before anything else is written.
extends_documentation_fragment:
  - virtinfra.hyperconverged.k8s_auth
  - virtinfra.hyperconverged.k8s_auth.call
seealso:
  - module: virtinfra.hyperconverged.hco_render
  - module: virtinfra.hyperconverged.cluster_info
"""

EXAMPLES = r"""
- name: Apply the operands the engine rendered
  virtinfra.hyperconverged.k8s_apply:
    objects: "{{ rendered.operands }}"
    apply_set: kubevirt-operands
    prune: true
    wait_for:
      - apiVersion: kubevirt.io/v1
        kind: KubeVirt
        namespace: kubevirt-hyperconverged
        name: kubevirt-kubevirt-hyperconverged
        condition:
          type: Available
  register: applied

- name: Report what someone changed behind our back, change nothing
  virtinfra.hyperconverged.k8s_apply:
    objects: "{{ rendered.operands }}"
    drift: report
  check_mode: true
  register: drift

- name: Compare HCO's operands with what HCO should have built (read-only)
  virtinfra.hyperconverged.k8s_apply:
    objects: "{{ rendered.operands }}"
    state: observed

- name: Apply a directory of manifests (what write_manifests or the render playbook wrote), pruning what left it
  virtinfra.hyperconverged.k8s_apply:
    src:
      - manifests   # found in the role's files/, or the playbook's files/ or directory
    apply_set: site-manifests
    prune: true
"""

RETURN = r"""
waited:
  description: What the task waited for on the controller and for how long, each C({what, seconds}) (local
    connection with O(wait_for)).
  returned: when the waits ran on the controller
  type: list
  elements: dict
objects:
  description:
    - One entry per input object, in input order; with O(report=changed) (the default) only those whose action is
      not C(unchanged), that drifted or that were deferred.
  returned: always
  type: list
  elements: dict
  contains:
    action:
      description:
        - C(created), C(updated), C(unchanged), C(deleted), C(missing), or C(drifted) (O(state=observed)).
        - C(kept) with O(state=absent) and O(apply_set) for an object the set did not create.
        - C(adopted) for an existing object that O(adopt) took into the apply set.
      type: str
    membership:
      description: C(shared) for an existing Namespace or CRD that is used but never made a member (see O(adopt)).
      type: str
      returned: when shared
    owner_apply_set:
      description: The id of the other apply set (of this field manager) whose member a shared object is; it is
        used as it is, not written.
      type: str
      returned: when another apply set made the shared object
    changes:
      description:
        - Field-level changes, each C({path, op, before, after}) with op C(add), C(remove) or C(change).
        - The object's identity (C(apiVersion), C(kind), C(metadata.name), C(metadata.namespace)) is not listed,
          since the entry names it and it never changes. A created object lists its other fields with op C(add)
          and a deleted one with op C(remove); the whole object is in the diff (C(--diff)).
      type: list
    drift:
      description: C({count, fields}); each field C({path, op, before, after, managers}).
      type: dict
    reverted:
      description: Drifted fields this run put back.
      type: int
    validated_by:
      description: C(dry-run), C(crd-schema), C(live-state) (already as desired) or C(deferred).
      type: str
    deferred:
      description: Why the object could not be dry-run in check mode (its Namespace or CRD is created by this call).
      type: str
      returned: when deferred
  sample:
    - {apiVersion: v1, kind: ConfigMap, namespace: kubevirt, name: settings, action: updated,
       changes: [{path: data.mode, op: change, before: a, after: b}], drift: {count: 0, fields: []}, reverted: 0,
       validated_by: dry-run}
counts:
  description: Every input object counted by its RV(objects[].action), whatever O(report) lists.
  returned: always
  type: dict
  sample: {created: 2, unchanged: 9998}
apply_set:
  description:
    - The apply set's parent after this run (empty without O(apply_set)); C(action) as for RV(objects).
  returned: always
  type: dict
  contains:
    id:
      description: The C(applyset.kubernetes.io/id) of the parent, the value of each member's C(part-of) label.
      type: str
    parent:
      description: C(v1 ConfigMap <namespace>/<name>).
      type: str
    group_kinds:
      description: Kinds the parent records (C(Kind.group)).
      type: list
      elements: str
    namespaces:
      description: Namespaces the parent records (its own included).
      type: list
      elements: str
  sample: {name: hyperconverged, namespace: kubevirt-hyperconverged, id: applyset-tlksUoVo3vewDuhP1h08ogDdhNqd_UHfHIER5J_v_Wc-v1,
           parent: v1 ConfigMap kubevirt-hyperconverged/hyperconverged, action: unchanged,
           group_kinds: [CDI.cdi.kubevirt.io, KubeVirt.kubevirt.io], namespaces: [kubevirt-hyperconverged]}
pruned:
  description:
    - Objects deleted because they are no longer desired (in check mode, that would be deleted). A pruned
      Namespace or CRD lists in C(contents) the objects of the apply set that went with it.
  returned: always
  type: list
  elements: dict
  contains:
    contents:
      description: For a pruned Namespace or CRD, the objects of the apply set that go with it (C(Kind ns/name)).
      type: list
      elements: str
      returned: when a Namespace or CRD is pruned
drift_total:
  description: Drifted fields over all objects.
  returned: always
  type: int
reverted_total:
  description: Drifted fields put back by this run.
  returned: always
  type: int
requests:
  description: HTTP requests this call made, C({total, writes, by_method}).
  returned: always
  type: dict
connection:
  description:
    - Where the call connected and what chose it, as C(-v) shows it. C(source) is the kubeconfig file(s) and context,
      C(host option), or C(in-cluster service account); C(proxy_source) is C(proxy option), C(kubeconfig proxy-url),
      the environment variable (C(HTTPS_PROXY), ...), or what bypassed it (C(HTTPS_PROXY bypassed by NO_PROXY)).
      The proxy is shown without its credentials.
  returned: when the connection could be set up
  type: dict
  sample: {server: "https://api.example.com:6443", source: "kubeconfig /home/ops/.kube/config, context admin",
           proxy: "http://proxy.example.com:3128", proxy_source: HTTPS_PROXY}
unknown:
  description:
    - On a failure, the writes and deletes whose outcome is unknown, each C({apiVersion, kind, namespace, name,
      action}). The request reached the API server and its answer was lost; the object was read back and did not
      tell (it could not be read, or someone else changed it since). Counted as a possible change (C(changed)).
  returned: failure
  type: list
  elements: dict
deleted:
  description:
    - With O(state=absent), the objects deleted (in check mode, that would be deleted), in input order. On a
      failure, exactly those the API server confirmed before it.
  returned: with O(state=absent), and on failure
  type: list
  elements: dict
errors:
  description:
    - Every problem found, each C({object, index, path, message}), in input order (problems of options and of the
      cluster last), whatever order the parallel requests found them in.
  returned: failure
  type: list
  elements: dict
written:
  description:
    - On a failure after writing began, every object the API server confirmed written before it (C({apiVersion,
      kind, namespace, name, action}), the apply-set parent and the lock's Namespace included; C(changed) is then
      true. RV(pruned) and RV(deleted) likewise list what was deleted. These come from a ledger that records each
      write as the server confirms it, never from the plan.
  returned: failure
  type: list
  elements: dict
diff:
  description: Before and after of each changed object (Ansible's diff format, as data).
  returned: in diff mode
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KUBERNETES_IMPORT_ERROR
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import LOCK_TIMEOUT, WAIT_TIMEOUT, WORKERS
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import AUTH_ARGUMENT_SPEC
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import run_apply

ARGUMENT_SPEC = dict(
    objects=dict(type="list", elements="raw"),
    src=dict(type="list", elements="path"),
    state=dict(type="str", choices=["present", "absent", "observed"], default="present"),
    drift=dict(type="str", choices=["revert", "report"], default="revert"),
    prune=dict(type="bool", default=False),
    prune_kinds=dict(type="list", elements="dict", default=[], options=dict(
        apiVersion=dict(type="str", required=True), kind=dict(type="str", required=True))),
    apply_set=dict(type="str"),
    apply_set_namespace=dict(type="str"),
    prune_namespaces=dict(type="bool", default=False),
    adopt=dict(type="bool", default=False),
    namespaces_created_earlier=dict(type="list", elements="str", default=[]),
    field_manager=dict(type="str", default="virtinfra.hyperconverged"),
    namespace=dict(type="str"),
    wait=dict(type="bool", default=True),
    wait_for=dict(type="list", elements="dict", default=[], options=dict(
        apiVersion=dict(type="str", required=True),
        kind=dict(type="str", required=True),
        name=dict(type="str", required=True),
        namespace=dict(type="str"),
        condition=dict(type="dict", options=dict(
            type=dict(type="str", required=True),
            status=dict(type="str", default="True"),
            reason=dict(type="str"))),
        jsonpath=dict(type="str"),
        success=dict(type="list", elements="raw", default=[]),
        failure=dict(type="list", elements="raw", default=[]),
        ready=dict(type="bool", default=False),
    ), mutually_exclusive=[("condition", "jsonpath", "ready")], required_one_of=[("condition", "jsonpath", "ready")]),
    wait_timeout=dict(type="int", default=WAIT_TIMEOUT),
    lock_timeout=dict(type="int", default=LOCK_TIMEOUT),
    report=dict(type="str", choices=["changed", "all"], default="changed"),
    concurrency=dict(type="int", default=WORKERS),
    **AUTH_ARGUMENT_SPEC,
)


REQUIRED_ONE_OF = [("objects", "src")]


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True, required_one_of=REQUIRED_ONE_OF)
    if KUBERNETES_IMPORT_ERROR is not None:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=str(KUBERNETES_IMPORT_ERROR))
    outcome = run_apply(module.params, module.check_mode, module._diff)
    module.no_log_values.update(outcome.no_log_values)
    for warning in outcome.warnings:
        module.warn(warning)
    if outcome.failed:
        module.fail_json(**outcome.result)
    module.exit_json(**outcome.result)


if __name__ == "__main__":
    main()
