// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

//go:build hco_v1 || hco_v118

// HCO 1.18 and later: v1beta1 and v1 served, converted through the v1 hub by HCO's own ConvertTo/ConvertFrom.

package main

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1 "github.com/kubevirt/hyperconverged-cluster-operator/api/v1"
	hcov1beta1 "github.com/kubevirt/hyperconverged-cluster-operator/api/v1beta1"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/commontestutils"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/hyperconverged"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/tlssecprofile"
	hcoutil "github.com/kubevirt/hyperconverged-cluster-operator/pkg/util"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/webhooks/mutator"
)

type releaseHub struct{}

var release releaseHub

func (releaseHub) scheme() *runtime.Scheme { return commontestutils.GetScheme() }

func (releaseHub) initCluster(ctx context.Context, cl client.Client) error {
	hcoutil.GetEventEmitter().Init(nil, nil, &record.FakeRecorder{})
	if err := hcoutil.GetClusterInfo().Init(ctx, cl, logger()); err != nil {
		return err
	}
	if !hcoutil.GetClusterInfo().IsOpenshift() {
		return nil
	}
	_, err := tlssecprofile.Refresh(ctx, cl)
	return err
}

func (releaseHub) mutator(version string, cl client.Client, decoder admission.Decoder) admission.Handler {
	if version == "v1beta1" {
		return mutator.NewHyperConvergedV1Beta1Mutator(cl, decoder)
	}
	return mutator.NewHyperConvergedMutator(cl, decoder)
}

func (releaseHub) convert(obj map[string]any, to string) (map[string]any, error) {
	from := obj["apiVersion"].(string)
	if from == hcoGroup+"/"+to {
		return obj, nil
	}
	raw, _ := json.Marshal(obj)
	var out any
	if to == "v1" {
		src, dst := &hcov1beta1.HyperConverged{}, &hcov1.HyperConverged{}
		if err := json.Unmarshal(raw, src); err != nil {
			return nil, err
		}
		if err := src.ConvertTo(dst); err != nil {
			return nil, err
		}
		out = dst
	} else {
		src, dst := &hcov1.HyperConverged{}, &hcov1beta1.HyperConverged{}
		if err := json.Unmarshal(raw, src); err != nil {
			return nil, err
		}
		if err := dst.ConvertFrom(src); err != nil {
			return nil, err
		}
		out = dst
	}
	result := map[string]any{}
	if err := json.Unmarshal(toJSON(out), &result); err != nil {
		return nil, err
	}
	result["apiVersion"], result["kind"] = hcoGroup+"/"+to, "HyperConverged"
	return result, nil
}

func (releaseHub) unsafeModifications(annotations map[string]string) map[string]int {
	return hyperconverged.VirtinfraUnsafeModifications(annotations)
}
