// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Judges objects as Flux's kustomize-controller does when it waits for them: with a Kustomization's
// spec.healthCheckExprs, through Flux's own status reader for them (github.com/fluxcd/pkg/runtime/cel,
// NewStatusReader, ReadStatusForObject: the observedGeneration check, then inProgress, failed, current; an expression
// that cannot be evaluated reads as Unknown, which a wait keeps polling), and without, kstatus
// (github.com/fluxcd/cli-utils/pkg/kstatus/status, Compute), the reader Flux falls back to for a kind no expression
// covers.
//
// Reads one JSON document on stdin, {"healthCheckExprs": [...], "objects": [...]}, and writes a line per object:
// {"cel": status, "kstatus": status, "error": "..."} ("cel" empty where no expression covers the object's kind).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/kustomize"
	fluxcel "github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type input struct {
	Checks  []kustomize.CustomHealthCheck `json:"healthCheckExprs"`
	Objects []map[string]any              `json:"objects"`
}

type answer struct {
	CEL     string `json:"cel"`
	KStatus string `json:"kstatus"`
	Error   string `json:"error,omitempty"`
}

func main() {
	var in input
	decoder := json.NewDecoder(os.Stdin)
	decoder.UseNumber()
	if err := decoder.Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	newReader, err := fluxcel.NewStatusReader(in.Checks)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	reader := newReader(nil).(*fluxcel.StatusReader)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, object := range in.Objects {
		// As the API server's JSON decodes: numbers as int64 where they are integers.
		raw, _ := json.Marshal(object)
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var a answer
		if computed, err := status.Compute(u); err != nil {
			a.KStatus = "error: " + err.Error()
		} else {
			a.KStatus = computed.Status.String()
		}
		if reader.Supports(u.GroupVersionKind().GroupKind()) {
			result, err := reader.ReadStatusForObject(context.Background(), nil, u)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			a.CEL = result.Status.String()
			if result.Error != nil {
				a.Error = result.Error.Error()
			}
		}
		line, _ := json.Marshal(a)
		fmt.Fprintln(out, string(line))
	}
}
