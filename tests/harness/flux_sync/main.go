// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// flux-sync reconciles Flux Kustomization objects against a cluster the way Flux's kustomize-controller does, with
// Flux's own libraries: each path built by github.com/fluxcd/pkg/kustomize (the generator, which writes a
// kustomization.yaml where a path has none, then SecureBuild), applied by github.com/fluxcd/pkg/ssa
// (ApplyAllStaged: cluster definitions first, waited for) and waited for by ssa's kstatus poller (spec.wait: every
// applied object; otherwise spec.healthChecks), with the status readers of spec.healthCheckExprs
// (github.com/fluxcd/pkg/runtime/cel, NewStatusReader) as kustomize-controller adds them to its poller. Test
// tooling only: no source-controller, no dependsOn scheduling (the Kustomizations are taken in the order given, as
// dependsOn chains them), a failed attempt retried after --retry-interval as Flux retries after spec.retryInterval.
//
//	flux-sync build ROOT PATH                  print the objects Flux builds for PATH (relative to ROOT)
//	flux-sync [--timeout D] [--attempts N] [--retry-interval D] sync KUBECONFIG ROOT FILE...
//	                                           reconcile each Kustomization file in order; one JSON line an attempt
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/object"
	fluxapi "github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/kustomize"
	fluxcel "github.com/fluxcd/pkg/runtime/cel"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// timeoutCap, when set, caps spec.timeout (a test waits minutes, not the ten a guide's Kustomization allows).
var timeoutCap time.Duration

type attempt struct {
	Kustomization string   `json:"kustomization"`
	Attempt       int      `json:"attempt"`
	Applied       []string `json:"applied"`
	Waited        int      `json:"waited"`
	Error         string   `json:"error,omitempty"`
}

func main() {
	retryInterval := flag.Duration("retry-interval", 5*time.Second, "the wait before a failed attempt is retried")
	attempts := flag.Int("attempts", 3, "attempts per Kustomization")
	flag.DurationVar(&timeoutCap, "timeout", 0, "the longest an attempt may wait (0: the Kustomization's spec.timeout)")
	flag.Parse()
	args := flag.Args()
	var err error
	switch {
	case len(args) == 3 && args[0] == "build":
		err = printBuild(args[1], args[2])
	case len(args) >= 4 && args[0] == "sync":
		err = syncAll(args[1], args[2], args[3:], *retryInterval, *attempts)
	default:
		err = errors.New("usage: flux-sync build ROOT PATH | flux-sync sync KUBECONFIG ROOT FILE...")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// built is what kustomize-controller's build step yields for one path of the source's root.
func built(root, path string, kustomization unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	dir, err := filepath.Abs(filepath.Join(root, path))
	if err != nil {
		return nil, err
	}
	generator := kustomize.NewGenerator(root, kustomization)
	action, err := generator.WriteFile(dir)
	if err != nil {
		return nil, fmt.Errorf("kustomization generation of %s: %w", path, err)
	}
	defer func() { _ = kustomize.CleanDirectory(dir, action) }()
	resources, err := kustomize.SecureBuild(root, dir, false)
	if err != nil {
		return nil, fmt.Errorf("kustomize build of %s: %w", path, err)
	}
	text, err := resources.AsYaml()
	if err != nil {
		return nil, err
	}
	return utils.ReadObjects(bytes.NewReader(text))
}

func printBuild(root, path string) error {
	objects, err := built(root, path, unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}})
	if err != nil {
		return err
	}
	for _, obj := range objects {
		text, err := yaml.Marshal(obj.Object)
		if err != nil {
			return err
		}
		fmt.Printf("---\n%s", text)
	}
	return nil
}

func syncAll(kubeconfig, root string, files []string, retryInterval time.Duration, attempts int) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	kubeClient, err := client.New(config, client.Options{})
	if err != nil {
		return err
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var kustomization unstructured.Unstructured
		if err := yaml.Unmarshal(text, &kustomization.Object); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var spec struct {
			Spec struct {
				HealthCheckExprs []fluxapi.CustomHealthCheck `json:"healthCheckExprs"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(text, &spec); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		options := polling.Options{}
		if len(spec.Spec.HealthCheckExprs) > 0 {
			reader, err := fluxcel.NewStatusReader(spec.Spec.HealthCheckExprs)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			options.CustomStatusReaders = append(options.CustomStatusReaders, reader(kubeClient.RESTMapper()))
		}
		poller := polling.NewStatusPoller(kubeClient, kubeClient.RESTMapper(), options)
		manager := ssa.NewResourceManager(kubeClient, poller, ssa.Owner{Field: "kustomize-controller",
			Group: "kustomize.toolkit.fluxcd.io"})
		var last error
		for n := 1; n <= attempts; n++ {
			if n > 1 {
				time.Sleep(retryInterval)
			}
			result := reconcile(manager, root, kustomization)
			result.Attempt = n
			line, _ := json.Marshal(result)
			fmt.Println(string(line))
			if result.Error == "" {
				last = nil
				break
			}
			last = errors.New(result.Error)
		}
		if last != nil {
			return fmt.Errorf("%s: %w", kustomization.GetName(), last)
		}
	}
	return nil
}

// reconcile is one attempt of kustomize-controller's reconcile for one Kustomization: build, apply, wait.
func reconcile(manager *ssa.ResourceManager, root string, kustomization unstructured.Unstructured) attempt {
	name, namespace := kustomization.GetName(), kustomization.GetNamespace()
	result := attempt{Kustomization: name}
	path, _, _ := unstructured.NestedString(kustomization.Object, "spec", "path")
	timeout := 5 * time.Minute
	if text, found, _ := unstructured.NestedString(kustomization.Object, "spec", "timeout"); found {
		if parsed, err := time.ParseDuration(text); err == nil {
			timeout = parsed
		}
	}
	if timeoutCap > 0 && timeout > timeoutCap {
		timeout = timeoutCap
	}
	objects, err := built(root, path, kustomization)
	if err != nil {
		result.Error = err.Error()
		return result
	}
	manager.SetOwnerLabels(objects, name, namespace)
	options := ssa.DefaultApplyOptions()
	options.WaitTimeout = timeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	changeSet, err := manager.ApplyAllStaged(ctx, objects, options)
	if changeSet != nil {
		for _, entry := range changeSet.Entries {
			result.Applied = append(result.Applied, entry.String())
		}
	}
	if err != nil {
		result.Error = err.Error()
		return result
	}
	waitFor := changeSet.ToObjMetadataSet()
	if wait, _, _ := unstructured.NestedBool(kustomization.Object, "spec", "wait"); !wait {
		waitFor = healthChecks(kustomization)
	}
	result.Waited = len(waitFor)
	if err := manager.WaitForSet(waitFor, ssa.WaitOptions{Interval: 2 * time.Second, Timeout: timeout}); err != nil {
		result.Error = err.Error()
	}
	return result
}

// healthChecks are spec.healthChecks (apiVersion, kind, name, namespace), as object metadata for the poller.
func healthChecks(kustomization unstructured.Unstructured) object.ObjMetadataSet {
	checks, _, _ := unstructured.NestedSlice(kustomization.Object, "spec", "healthChecks")
	var set object.ObjMetadataSet
	for _, check := range checks {
		entry, _ := check.(map[string]any)
		apiVersion, _ := entry["apiVersion"].(string)
		kind, _ := entry["kind"].(string)
		name, _ := entry["name"].(string)
		namespace, _ := entry["namespace"].(string)
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			continue
		}
		set = append(set, object.ObjMetadata{GroupKind: schema.GroupKind{Group: gv.Group, Kind: kind},
			Name: name, Namespace: namespace})
	}
	return set
}
