// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

//go:build hco_v1

// HCO 1.19 and later: the controller reads the v1 HyperConverged (stored as v1).

package main

import (
	"context"
	"encoding/json"
	"os"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1 "github.com/kubevirt/hyperconverged-cluster-operator/api/v1"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/common"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/commontestutils"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/hyperconverged"
	"github.com/kubevirt/hyperconverged-cluster-operator/controllers/operandhandler"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/nodeinfo"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/tlssecprofile"
	hcoutil "github.com/kubevirt/hyperconverged-cluster-operator/pkg/util"
	"github.com/kubevirt/hyperconverged-cluster-operator/pkg/webhooks/validator"
)

func (releaseHub) controllerVersion() string { return "v1" }

func (releaseHub) validator(version string, cl client.Client, decoder admission.Decoder, isOpenshift bool) admission.Handler {
	if version == "v1beta1" {
		return validator.NewWebhookV1Beta1Handler(logger(), cl, decoder, namespace, isOpenshift)
	}
	return validator.NewWebhookHandler(logger(), cl, decoder, namespace, isOpenshift)
}

func (releaseHub) reconcile(ctx context.Context, cl client.Client, raw []byte) error {
	hc := &hcov1.HyperConverged{}
	if err := json.Unmarshal(raw, hc); err != nil {
		return err
	}
	if err := store(ctx, cl, hc, &hcov1.HyperConverged{}); err != nil {
		return err
	}
	tlssecprofile.SetHyperConvergedTLSSecurityProfile(hc.Spec.Security.TLSSecurityProfile)
	if _, err := nodeinfo.HandleNodeChanges(ctx, cl, hc, logger()); err != nil {
		return err
	}
	req := common.NewHcoRequest(ctx, reconcile.Request{NamespacedName: types.NamespacedName{
		Name: hc.Name, Namespace: hc.Namespace}}, logger(), false, true)
	req.Instance = hc
	hyperconverged.VirtinfraBeforeOperands(req)
	handler := operandhandler.NewOperandHandler(cl, commontestutils.GetScheme(), hcoutil.GetClusterInfo(),
		hcoutil.GetEventEmitter())
	// The reconciler's first loop (firstLoopInitialization): 1.16 and 1.17 add the console's handlers here.
	handler.FirstUseInitiation(commontestutils.GetScheme(), hcoutil.GetClusterInfo(), hc, os.DirFS("."))
	return handler.Ensure(req)
}
