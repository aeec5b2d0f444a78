// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Command hco-golden runs HCO's own code on HyperConverged inputs and writes what it builds: development tooling
// for the engine's golden files, never part of the built collection. build-hco-golden compiles it inside a
// checkout of kubevirt/hyperconverged-cluster-operator at a release tag (vendored dependencies, -mod=vendor),
// beside a small shim that exports three unexported controller steps (see shim.go.in).
//
// Each case goes the way a request goes through a cluster:
//  1. the real kube-apiserver applies the CRD of the tag (defaults, pruning, schema and CEL rules): a dry-run
//     create against a copy of that version's schema under an alias group (one version per alias, so no
//     conversion webhook is needed);
//  2. HCO's mutating webhook of the request's version (matchPolicy Exact), its JSON patch applied, then the
//     schema again;
//  3. HCO's validating webhook of that version: its warnings, or the refusal;
//  4. conversion to the version HCO's controller reads (HCO's own ConvertTo/ConvertFrom), the schema of that
//     version, the live status of the case;
//  5. the controller's steps before the operands (node info, status, data import schedule) and HCO's
//     OperandHandler.Ensure against a controller-runtime fake client seeded with the case's cluster. Every object
//     HCO creates or updates is recorded as it sends it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	openshiftconfigv1 "github.com/openshift/api/config/v1"
	jsonpatch "gopkg.in/evanphx/json-patch.v4" // the library the API server applies webhook patches with
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"
)

const (
	namespace  = "kubevirt-hyperconverged"
	hcoGroup   = "hco.kubevirt.io"
	aliasGroup = "golden.virtinfra.test"
)

// The kinds recorded, in the order of the golden files; ConfigMaps only by these names.
var kindOrder = []string{"KubeVirt", "CDI", "NetworkAddonsConfig", "SSP", "AAQ", "MigController",
	"FileRestoreOperator", "PriorityClass", "DaemonSet", "Deployment", "ConfigMap"}
var configMaps = map[string]bool{"nginx-conf": true, "kubevirt-aie-launcher-config": true}

type caseFile struct {
	Name      string         `json:"name"`
	Context   caseContext    `json:"context"`
	Operation string         `json:"operation,omitempty"`
	Input     map[string]any `json:"input"`
	Expect    map[string]any `json:"expect,omitempty"`
}

type caseNode struct {
	Name         string            `json:"name"`
	Labels       map[string]string `json:"labels,omitempty"`
	Architecture string            `json:"architecture"`
}

type caseContext struct {
	Platform                    string             `json:"platform"`
	BaseDomain                  string             `json:"baseDomain,omitempty"`
	Nodes                       []caseNode         `json:"nodes"`
	APIServerTLSSecurityProfile map[string]any     `json:"apiServerTLSSecurityProfile,omitempty"`
	Env                         map[string]*string `json:"env,omitempty"`
	HCStatus                    map[string]any     `json:"hcStatus,omitempty"`
}

// refused is a request the cluster or HCO turns down, named by the stage that stopped it.
type refused struct{ stage, message string }

func (r refused) Error() string { return r.stage + ": " + r.message }

func main() {
	kubeconfig := flag.String("schema-kubeconfig", "", "kubeconfig of the API server used for the CRD's schema")
	source := flag.String("source", ".", "the HCO checkout this binary was built from (deploy/ and assets/ are read)")
	cases := flag.String("cases", "", "directory of case files")
	one := flag.String("case", "", "one case file (each case runs in a process of its own: HCO reads its "+
		"environment and golden images once, and keeps TLS and node caches)")
	out := flag.String("out", "", "directory the golden files are written to")
	flag.Parse()
	var err error
	if *one != "" {
		err = runOne(*kubeconfig, *source, *one, *out)
	} else {
		err = run(*kubeconfig, *source, *cases, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hco-golden:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, source, casesDir, outDir string) error {
	ctx := context.Background()
	dyn, err := dynamicClient(kubeconfig)
	if err != nil {
		return err
	}
	if _, err := installSchemas(ctx, dyn, filepath.Join(source, "deploy", "crds", "hco00.crd.yaml"), true); err != nil {
		return err
	}
	baseEnv, err := csvEnvironment(source)
	if err != nil {
		return err
	}
	names, err := filepath.Glob(filepath.Join(casesDir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	// The operator's working directory, as its image lays it out: the golden images beside it.
	workdir, err := os.MkdirTemp("", "hco-golden-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(workdir)
	absSource, _ := filepath.Abs(source)
	// A copy, not a symlink: 1.15 walks the directory with filepath.Walk, which does not enter a linked root.
	if err := os.CopyFS(filepath.Join(workdir, "dataImportCronTemplates"),
		os.DirFS(filepath.Join(absSource, "assets", "dataImportCronTemplates"))); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	absKubeconfig, _ := filepath.Abs(kubeconfig)
	absOut, _ := filepath.Abs(outDir)
	for _, name := range names {
		c, err := readCase(name)
		if err != nil {
			return err
		}
		absName, _ := filepath.Abs(name)
		child := exec.Command(self, "-schema-kubeconfig", absKubeconfig, "-source", absSource, "-case", absName,
			"-out", absOut)
		child.Dir, child.Env, child.Stdout, child.Stderr = workdir, environment(baseEnv, c.Context.Env), os.Stdout, os.Stderr
		if err := child.Run(); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
	}
	return nil
}

func dynamicClient(kubeconfig string) (dynamic.Interface, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	config.WarningHandler = rest.NoWarnings{} // the schema's "unknown field" warnings: pruning is what is recorded
	return dynamic.NewForConfig(config)
}

func readCase(name string) (*caseFile, error) {
	text, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	c := &caseFile{}
	if err := yaml.UnmarshalStrict(text, c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

func runOne(kubeconfig, source, name, outDir string) error {
	ctx := context.Background()
	dyn, err := dynamicClient(kubeconfig)
	if err != nil {
		return err
	}
	schemas, err := installSchemas(ctx, dyn, filepath.Join(source, "deploy", "crds", "hco00.crd.yaml"), false)
	if err != nil {
		return err
	}
	c, err := readCase(name)
	if err != nil {
		return err
	}
	if c.Expect, err = runCase(ctx, schemas, c); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	written, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, filepath.Base(name)), written, 0o644); err != nil {
		return err
	}
	fmt.Println(filepath.Base(name), summary(c.Expect))
	return nil
}

func summary(expect map[string]any) string {
	if expect["reject"] == true {
		return "refused: " + fmt.Sprint(expect["reason"])
	}
	return fmt.Sprintf("%d objects", len(expect["operands"].([]any)))
}

// installSchemas registers one alias CRD per version of HCO's CRD and returns a dry-run client for each.
func installSchemas(ctx context.Context, dyn dynamic.Interface, path string, install bool) (map[string]dynamic.ResourceInterface, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(text, &crd); err != nil {
		return nil, err
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1",
		Resource: "customresourcedefinitions"})
	spec := crd["spec"].(map[string]any)
	result := map[string]dynamic.ResourceInterface{}
	for _, raw := range spec["versions"].([]any) {
		version := raw.(map[string]any)
		name := version["name"].(string)
		group := name + "." + aliasGroup
		version["served"], version["storage"] = true, true
		alias := map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "hyperconvergeds." + group},
			"spec": map[string]any{"group": group, "names": spec["names"], "scope": spec["scope"],
				"versions": []any{version}},
		}
		result[name] = dyn.Resource(schema.GroupVersionResource{Group: group, Version: name,
			Resource: "hyperconvergeds"}).Namespace(namespace)
		if !install {
			continue
		}
		object := &unstructured.Unstructured{Object: alias}
		_ = crds.Delete(ctx, "hyperconvergeds."+group, metav1.DeleteOptions{})
		if err := waitGone(ctx, crds, "hyperconvergeds."+group); err != nil {
			return nil, err
		}
		if _, err := crds.Create(ctx, object, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("alias CRD for %s: %w", name, err)
		}
		if err := waitEstablished(ctx, crds, "hyperconvergeds."+group); err != nil {
			return nil, err
		}
	}
	if !install {
		return result, nil
	}
	namespaces := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": namespace}}}
	if _, err := namespaces.Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	return result, nil
}

// defaulted is the object as the API server would store it in that version: defaults, pruning, schema and CEL
// rules. The status is the caller's business (it is a subresource).
func defaulted(ctx context.Context, schemas map[string]dynamic.ResourceInterface, obj map[string]any) (map[string]any, error) {
	version := strings.TrimPrefix(obj["apiVersion"].(string), hcoGroup+"/")
	target, ok := schemas[version]
	if !ok {
		return nil, refused{"schema", "version " + version + " is not served"}
	}
	copied := runtime.DeepCopyJSON(obj)
	delete(copied, "status")
	copied["apiVersion"] = version + "." + aliasGroup + "/" + version
	meta := copied["metadata"].(map[string]any)
	for _, key := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"} {
		delete(meta, key)
	}
	created, err := target.Create(ctx, &unstructured.Unstructured{Object: copied},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		if status, ok := err.(apierrors.APIStatus); ok && status.Status().Reason == metav1.StatusReasonInvalid {
			return nil, refused{"schema", strings.ReplaceAll(status.Status().Message, "HyperConverged."+version+"."+aliasGroup, "HyperConverged."+hcoGroup)}
		}
		return nil, err
	}
	result := created.Object
	result["apiVersion"] = hcoGroup + "/" + version
	meta = result["metadata"].(map[string]any)
	for _, key := range []string{"resourceVersion", "uid", "creationTimestamp", "managedFields"} {
		delete(meta, key)
	}
	return result, nil
}

func runCase(ctx context.Context, schemas map[string]dynamic.ResourceInterface, c *caseFile) (map[string]any, error) {
	expect, err := process(ctx, schemas, c)
	var r refused
	if err != nil && asRefused(err, &r) {
		return map[string]any{"reject": true, "reason": r.Error()}, nil
	}
	return expect, err
}

func asRefused(err error, target *refused) bool {
	r, ok := err.(refused)
	if ok {
		*target = r
	}
	return ok
}

func process(ctx context.Context, schemas map[string]dynamic.ResourceInterface, c *caseFile) (map[string]any, error) {
	scheme := release.scheme()
	recorder := newRecorder(scheme)
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(clusterObjects(c.Context)...).
		WithInterceptorFuncs(recorder.funcs()).Build()
	if err := release.initCluster(ctx, cl); err != nil {
		return nil, fmt.Errorf("cluster info: %w", err)
	}
	status := c.Context.HCStatus
	if c.Operation == "UPDATE" {
		// The object being updated was created earlier through the whole CREATE path.
		old := runtime.DeepCopyJSON(c.Input)
		delete(old, "status")
		stored, _, err := admit(ctx, schemas, cl, scheme, old, nil, c.Context.Platform)
		if err != nil {
			return nil, fmt.Errorf("creating the object updated: %w", err)
		}
		if err := reconcileStored(ctx, schemas, cl, stored, status); err != nil {
			return nil, err
		}
		// The API server hands the webhook the old object as it reads it: stored in the storage version (the
		// one the controller reads), converted back to the request's.
		previous, err := release.convert(stored, release.controllerVersion())
		if err == nil {
			previous, err = release.convert(previous, strings.TrimPrefix(stored["apiVersion"].(string), hcoGroup+"/"))
		}
		if err != nil {
			return nil, fmt.Errorf("the stored object: %w", err)
		}
		stored, warnings, err := admit(ctx, schemas, cl, scheme, c.Input, previous, c.Context.Platform)
		if err != nil {
			return nil, err
		}
		if err := reconcileStored(ctx, schemas, cl, stored, status); err != nil {
			return nil, err
		}
		return expectation(recorder, warnings, stored)
	}
	stored, warnings, err := admit(ctx, schemas, cl, scheme, c.Input, nil, c.Context.Platform)
	if err != nil {
		return nil, err
	}
	if err := reconcileStored(ctx, schemas, cl, stored, status); err != nil {
		return nil, err
	}
	return expectation(recorder, warnings, stored)
}

func expectation(recorder *recorder, warnings []string, stored map[string]any) (map[string]any, error) {
	if warnings == nil {
		warnings = []string{}
	}
	annotations, _, _ := unstructured.NestedStringMap(stored, "metadata", "annotations")
	unsafe := map[string]any{}
	for name, count := range release.unsafeModifications(annotations) {
		unsafe[name] = count
	}
	return map[string]any{"operands": recorder.objects(), "warnings": warnings, "unsafe_modifications": unsafe}, nil
}

// admit takes a request through the schema and HCO's webhooks; it returns the object as stored (request
// version) and the validating webhook's warnings. old is the stored object of an UPDATE.
func admit(ctx context.Context, schemas map[string]dynamic.ResourceInterface, cl client.Client, scheme *runtime.Scheme,
	input map[string]any, old map[string]any, platform string) (map[string]any, []string, error) {
	obj, err := defaulted(ctx, schemas, input)
	if err != nil {
		return nil, nil, err
	}
	if status, ok := input["status"]; ok {
		obj["status"] = status // the update request carries it, and the mutating webhook reads it
	}
	version := strings.TrimPrefix(obj["apiVersion"].(string), hcoGroup+"/")
	decoder := admission.NewDecoder(scheme)
	operation := admissionv1.Create
	if old != nil {
		operation = admissionv1.Update
	}
	response, err := handle(release.mutator(version, cl, decoder), ctx, request(operation, version, obj, old))
	if err != nil {
		return nil, nil, refused{"mutating-webhook", err.Error()}
	}
	if !response.Allowed {
		return nil, nil, refused{"mutating-webhook", response.Result.Message}
	}
	if len(response.Patches) > 0 {
		if obj, err = applyPatches(obj, response.Patches); err != nil {
			return nil, nil, err
		}
		status := obj["status"]
		if obj, err = defaulted(ctx, schemas, obj); err != nil {
			return nil, nil, err
		}
		if status != nil {
			obj["status"] = status
		}
	}
	isOpenshift := platform == "openshift"
	response, err = handle(release.validator(version, cl, decoder, isOpenshift), ctx, request(operation, version, obj, old))
	if err != nil {
		return nil, nil, refused{"validating-webhook", err.Error()}
	}
	if !response.Allowed {
		return nil, nil, refused{"validating-webhook", response.Result.Message}
	}
	delete(obj, "status")
	return obj, response.Warnings, nil
}

// handle answers as controller-runtime's webhook server does when a handler panics: an internal error quoting it.
func handle(handler admission.Handler, ctx context.Context, req admission.Request) (response admission.Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v [recovered]", r)
		}
	}()
	return handler.Handle(ctx, req), nil
}

func request(operation admissionv1.Operation, version string, obj, old map[string]any) admission.Request {
	raw, _ := json.Marshal(obj)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "golden",
		Kind:      metav1.GroupVersionKind{Group: hcoGroup, Version: version, Kind: "HyperConverged"},
		Resource:  metav1.GroupVersionResource{Group: hcoGroup, Version: version, Resource: "hyperconvergeds"},
		Name:      "kubevirt-hyperconverged",
		Namespace: namespace,
		Operation: operation,
		Object:    runtime.RawExtension{Raw: raw},
	}}
	if old != nil {
		oldRaw, _ := json.Marshal(old)
		req.OldObject = runtime.RawExtension{Raw: oldRaw}
	}
	return req
}

func applyPatches(obj map[string]any, patches any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	patchText, err := json.Marshal(patches)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(patchText)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply(raw)
	if err != nil {
		return nil, err
	}
	result := map[string]any{}
	return result, json.Unmarshal(patched, &result)
}

// reconcileStored converts the stored object to the version the controller reads, gives it the case's status
// and runs the controller's steps; the HyperConverged is kept in the fake client as the controller would read it.
func reconcileStored(ctx context.Context, schemas map[string]dynamic.ResourceInterface, cl client.Client,
	stored map[string]any, status map[string]any) error {
	withStatus := runtime.DeepCopyJSON(stored)
	withStatus["status"] = liveStatus(status)
	read, err := release.convert(withStatus, release.controllerVersion())
	if err != nil {
		return fmt.Errorf("conversion: %w", err)
	}
	convertedStatus := read["status"]
	if read, err = defaulted(ctx, schemas, read); err != nil {
		return fmt.Errorf("the stored version's schema: %w", err)
	}
	read["status"] = convertedStatus
	raw, err := json.Marshal(read)
	if err != nil {
		return err
	}
	return release.reconcile(ctx, cl, raw)
}

// liveStatus is the case's status, with the fixed assumptions of the golden files: a generated schedule, and
// the operator's own version once the HyperConverged has conditions.
func liveStatus(status map[string]any) map[string]any {
	result := map[string]any{}
	if status != nil {
		result = runtime.DeepCopyJSON(status)
	}
	if _, ok := result["dataImportSchedule"]; !ok {
		result["dataImportSchedule"] = "<schedule>"
	}
	if _, ok := result["conditions"]; ok {
		if _, ok := result["versions"]; !ok {
			result["versions"] = []any{map[string]any{"name": "operator", "version": os.Getenv("HCO_KV_IO_VERSION")}}
		}
	}
	return result
}

// csvEnvironment is the operator container's environment in the tag's newest CSV.
func csvEnvironment(source string) (map[string]string, error) {
	found, err := filepath.Glob(filepath.Join(source, "deploy", "olm-catalog", "community-kubevirt-hyperconverged",
		"*", "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(found) == 0 {
		return nil, fmt.Errorf("no CSV under %s/deploy/olm-catalog: %v", source, err)
	}
	sort.Slice(found, func(i, j int) bool { return versionLess(found[i], found[j]) })
	text, err := os.ReadFile(found[len(found)-1])
	if err != nil {
		return nil, err
	}
	var csv struct {
		Spec struct {
			Install struct {
				Spec struct {
					Deployments []struct {
						Name string `json:"name"`
						Spec struct {
							Template struct {
								Spec corev1.PodSpec `json:"spec"`
							} `json:"template"`
						} `json:"spec"`
					} `json:"deployments"`
				} `json:"spec"`
			} `json:"install"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(text, &csv); err != nil {
		return nil, err
	}
	for _, deployment := range csv.Spec.Install.Spec.Deployments {
		if deployment.Name != "hco-operator" && deployment.Name != "hyperconverged-cluster-operator" {
			continue
		}
		env := map[string]string{}
		for _, variable := range deployment.Spec.Template.Spec.Containers[0].Env {
			if variable.ValueFrom == nil {
				env[variable.Name] = variable.Value
			}
		}
		env["OPERATOR_NAMESPACE"] = namespace
		env["POD_NAME"] = "hyperconverged-cluster-operator-golden"
		delete(env, "OPERATOR_CONDITION_NAME") // not managed by OLM
		return env, nil
	}
	return nil, fmt.Errorf("%s has no hyperconverged-cluster-operator deployment", found[len(found)-1])
}

func versionLess(a, b string) bool {
	part := func(path string) []int {
		dir := filepath.Base(filepath.Dir(filepath.Dir(path)))
		var numbers []int
		for _, field := range strings.Split(dir, ".") {
			n := 0
			fmt.Sscanf(field, "%d", &n)
			numbers = append(numbers, n)
		}
		return numbers
	}
	x, y := part(a), part(b)
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

// environment is this process's environment with the operator's (the CSV's, then the case's overrides).
func environment(base map[string]string, overrides map[string]*string) []string {
	merged := map[string]*string{}
	for _, entry := range os.Environ() {
		name, value, _ := strings.Cut(entry, "=")
		merged[name] = &value
	}
	for name, value := range base {
		merged[name] = &value
	}
	for name, value := range overrides {
		merged[name] = value
	}
	var result []string
	for name, value := range merged {
		if value != nil {
			result = append(result, name+"="+*value)
		}
	}
	sort.Strings(result)
	return result
}

// recorder keeps the last object HCO sent for each kind, namespace and name.
type recorder struct {
	scheme *runtime.Scheme
	sent   map[string]map[string]any
}

func newRecorder(scheme *runtime.Scheme) *recorder {
	return &recorder{scheme: scheme, sent: map[string]map[string]any{}}
}

func (r *recorder) record(obj client.Object) {
	gvk, err := apiutil.GVKForObject(obj, r.scheme)
	if err != nil {
		return
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return
	}
	content := map[string]any{}
	if err := json.Unmarshal(raw, &content); err != nil {
		return
	}
	content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
	r.sent[gvk.Kind+"/"+obj.GetNamespace()+"/"+obj.GetName()] = content
}

func (r *recorder) funcs() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if !isDryRun(opts) {
				r.record(obj)
			}
			return cl.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			applied := &client.UpdateOptions{}
			if applied.ApplyOptions(opts); len(applied.DryRun) == 0 {
				r.record(obj)
			}
			return cl.Update(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if gvk, err := apiutil.GVKForObject(obj, r.scheme); err == nil {
				delete(r.sent, gvk.Kind+"/"+obj.GetNamespace()+"/"+obj.GetName())
			}
			return cl.Delete(ctx, obj, opts...)
		},
	}
}

func isDryRun(opts []client.CreateOption) bool {
	applied := &client.CreateOptions{}
	applied.ApplyOptions(opts)
	return len(applied.DryRun) > 0
}

// objects are the recorded objects in the golden files' order and shape.
func (r *recorder) objects() []any {
	rank := map[string]int{}
	for i, kind := range kindOrder {
		rank[kind] = i
	}
	var keys []string
	for key, obj := range r.sent {
		kind := obj["kind"].(string)
		if _, ok := rank[kind]; !ok {
			continue
		}
		if kind == "ConfigMap" && !configMaps[nested(obj, "metadata", "name")] {
			continue
		}
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := r.sent[keys[i]], r.sent[keys[j]]
		if ka, kb := rank[a["kind"].(string)], rank[b["kind"].(string)]; ka != kb {
			return ka < kb
		}
		if na, nb := nested(a, "metadata", "namespace"), nested(b, "metadata", "namespace"); na != nb {
			return na < nb
		}
		return nested(a, "metadata", "name") < nested(b, "metadata", "name")
	})
	result := []any{}
	for _, key := range keys {
		result = append(result, shape(r.sent[key]))
	}
	return result
}

func nested(obj map[string]any, fields ...string) string {
	value, _, _ := unstructured.NestedString(obj, fields...)
	return value
}

func shape(obj map[string]any) map[string]any {
	meta := obj["metadata"].(map[string]any)
	keptMeta := map[string]any{}
	for _, key := range []string{"name", "namespace", "labels", "annotations"} {
		if value, ok := meta[key]; ok {
			keptMeta[key] = value
		}
	}
	result := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": keptMeta}
	for _, key := range []string{"spec", "data", "value", "globalDefault", "description"} {
		if value, ok := obj[key]; ok {
			result[key] = value
		}
	}
	return result
}

// clusterObjects are what the case's cluster holds before HCO runs.
func clusterObjects(c caseContext) []client.Object {
	objects := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}}
	for _, node := range c.Nodes {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node.Name, Labels: node.Labels}}
		n.Status.NodeInfo.Architecture = node.Architecture
		objects = append(objects, n)
	}
	if c.Platform != "openshift" {
		return objects
	}
	apiServer := &openshiftconfigv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	if c.APIServerTLSSecurityProfile != nil {
		profile := &openshiftconfigv1.TLSSecurityProfile{}
		if err := json.Unmarshal(toJSON(c.APIServerTLSSecurityProfile), profile); err == nil {
			apiServer.Spec.TLSSecurityProfile = profile
		}
	}
	infrastructure := &openshiftconfigv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	infrastructure.Status.PlatformStatus = &openshiftconfigv1.PlatformStatus{Type: openshiftconfigv1.BareMetalPlatformType}
	infrastructure.Status.ControlPlaneTopology = openshiftconfigv1.HighlyAvailableTopologyMode
	infrastructure.Status.InfrastructureTopology = openshiftconfigv1.HighlyAvailableTopologyMode
	network := &openshiftconfigv1.Network{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	network.Status.ClusterNetwork = []openshiftconfigv1.ClusterNetworkEntry{{CIDR: "10.128.0.0/14", HostPrefix: 23}}
	version := &openshiftconfigv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}}
	version.Status.Desired.Version = "4.20.0"
	dns := &openshiftconfigv1.DNS{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	dns.Spec.BaseDomain = c.BaseDomain
	ingress := &openshiftconfigv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}} // 1.14 reads it
	ingress.Spec.Domain = "apps." + c.BaseDomain
	objects = append(objects, apiServer, infrastructure, network, version, dns, ingress)
	// Monitoring is available on OpenShift: the two CRDs HCO looks for.
	// OpenShift runs Multus: its NetworkAttachmentDefinition CRD (HCO 1.16 and 1.17 look for it).
	for _, name := range []string{"prometheusrules.monitoring.coreos.com", "servicemonitors.monitoring.coreos.com",
		"network-attachment-definitions.k8s.cni.cncf.io"} {
		objects = append(objects, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	return objects
}

func toJSON(value any) []byte {
	raw, _ := json.Marshal(value)
	return raw
}

func logger() logr.Logger { return logr.Discard() }

// waitEstablished and waitGone poll the CRD; the API server answers within seconds.
func waitEstablished(ctx context.Context, crds dynamic.NamespaceableResourceInterface, name string) error {
	return poll(func() (bool, error) {
		got, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conditions, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, raw := range conditions {
			condition := raw.(map[string]any)
			if condition["type"] == "Established" && condition["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}

func waitGone(ctx context.Context, crds dynamic.NamespaceableResourceInterface, name string) error {
	return poll(func() (bool, error) {
		_, err := crds.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

func poll(done func() (bool, error)) error {
	for attempt := 0; attempt < 300; attempt++ {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("timed out")
}

// store keeps the HyperConverged in the fake client as the controller reads it (created or replaced).
func store(ctx context.Context, cl client.Client, hc client.Object, existing client.Object) error {
	hc.SetResourceVersion("")
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), existing); err == nil {
		hc.SetResourceVersion(existing.GetResourceVersion())
		return cl.Update(ctx, hc)
	}
	return cl.Create(ctx, hc)
}
