// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

//go:build hco_v115

// HCO 1.15 (and 1.14): v1beta1 only; handlers in controllers/operands, node facts and the TLS profile kept by
// ClusterInfo (Init reads the nodes).

package main

import (
	"context"
	"encoding/json"

	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/kubevirt/hyperconverged-cluster-operator/api/v1beta1"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/common"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/commontestutils"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/hyperconverged"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/operands"
	hcoutil "github.com/kubevirt/hyperconverged-cluster-operator/pkg/util"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/webhooks/mutator"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/webhooks/validator"
)

type releaseBeta struct{}

var release releaseBeta

// scheme: 1.15's GetScheme asserts with gomega, which needs a fail handler outside a test.
func (releaseBeta) scheme() *runtime.Scheme {
	gomega.RegisterFailHandler(func(message string, _ ...int) { panic(message) })
	return commontestutils.GetScheme()
}

func (releaseBeta) controllerVersion() string { return "v1beta1" }

func (releaseBeta) initCluster(ctx context.Context, cl client.Client) error {
	hcoutil.GetEventEmitter().Init(nil, nil, &record.FakeRecorder{})
	return hcoutil.GetClusterInfo().Init(ctx, cl, logger())
}

func (releaseBeta) mutator(_ string, cl client.Client, decoder admission.Decoder) admission.Handler {
	return mutator.NewHyperConvergedMutator(cl, decoder)
}

// validator: the webhook reads the HyperConverged's TLS profile when it starts, before the HyperConverged exists.
func (releaseBeta) validator(_ string, cl client.Client, decoder admission.Decoder, isOpenshift bool) admission.Handler {
	return validator.NewWebhookHandler(logger(), cl, decoder, namespace, isOpenshift, nil)
}

func (releaseBeta) convert(obj map[string]any, _ string) (map[string]any, error) { return obj, nil }

func (releaseBeta) reconcile(ctx context.Context, cl client.Client, raw []byte) error {
	hc := &hcov1beta1.HyperConverged{}
	if err := json.Unmarshal(raw, hc); err != nil {
		return err
	}
	if err := store(ctx, cl, hc, &hcov1beta1.HyperConverged{}); err != nil {
		return err
	}
	if err := hcoutil.GetClusterInfo().SetHighAvailabilityMode(ctx, cl); err != nil {
		return err
	}
	req := common.NewHcoRequest(ctx, reconcile.Request{NamespacedName: types.NamespacedName{
		Name: hc.Name, Namespace: hc.Namespace}}, logger(), false, true)
	req.Instance = hc
	hyperconverged.VirtinfraBeforeOperands(req)
	handler := operands.NewOperandHandler(cl, commontestutils.GetScheme(), hcoutil.GetClusterInfo(),
		hcoutil.GetEventEmitter())
	// The reconciler's first loop (firstLoopInitialization): the console's handlers are added here.
	handler.FirstUseInitiation(commontestutils.GetScheme(), hcoutil.GetClusterInfo(), hc)
	return handler.Ensure(req)
}

func (releaseBeta) unsafeModifications(annotations map[string]string) map[string]int {
	return hyperconverged.VirtinfraUnsafeModifications(annotations)
}
