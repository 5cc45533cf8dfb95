//! Rules of GPU fabrics (the fast inter-node interconnect of a machine type): what `render` reports
//! about wiring one into a multi-node runtime, and what `validate` reports about a runtime that
//! leaves its machine's fabric unused.

use super::rule::define_rules;

define_rules! {
    INTERCONNECT_NOT_WIRED = "interconnect/not-wired", Info, Catalog,
        "A multi-node GPU runtime gets no fast interconnect: its machine type has no fabric jax-runtimes knows, a pod takes only part of the machine, the selected machine types differ in their fabric, or a fabric value is not known. It renders as without a fabric: NCCL uses the pod network, which works, slowly.",
        "Follow the message: take the whole machine (`count`), pin one `machineType`, or set `spec.accelerator.gpu.fabric`; `interconnect: none` says the plain network is intended.";
    INTERCONNECT_HOST_NETWORK = "interconnect/host-network", Error, Catalog,
        "`hostNetwork: true` on a runtime whose fabric reaches its NICs through pod networking (GKE GPUDirect): the fabric's interface annotations do not apply to host-network pods.",
        "Remove `hostNetwork`, or set `interconnect: none`.";
    INTERCONNECT_UNUSED_SETTINGS = "interconnect/unused-settings", Warning, Catalog,
        "`spec.accelerator.gpu.fabric` sets a value that the runtime does not use: the runtime has one node or `interconnect: none`, or its fabric has no such value (networks outside GKE, a daemon image without a daemon).",
        "Remove the value, or fix the runtime so that it wires the fabric the value is for.";
    INTERCONNECT_UNUSED = "interconnect/unused", Warning, Accelerators,
        "A multi-node GPU runtime whose pods take whole machines of a type with a fast fabric (GPUDirect-TCPX/TCPXO, GPUDirect RDMA, EFA, InfiniBand) but do not use it: NCCL runs over one ordinary NIC per node, a small fraction of the bandwidth.",
        "Generate the runtime with jax-runtimes (`interconnect: auto` wires the fabric), add what the message names, or annotate the runtime `jax-runtimes.dev/interconnect: none` if the plain network is intended.";
    DRA_CLAIM_NOT_IN_POD = "dra/claim-not-in-pod", Error, Accelerators,
        "A container of a runtime's pod uses a DRA resource claim (`resources.claims[].name`) that the pod does not declare in `spec.resourceClaims`. The CRD does not check it; the API server refuses every pod the Job makes from the template, so the TrainJob never starts.",
        "Declare the claim in the pod's `spec.resourceClaims` (with the `resourceClaimTemplateName` it is made from), or remove it from the container.";
    DRA_TEMPLATE_NOT_GIVEN = "dra/template-not-given", Warning, Accelerators,
        "A pod claim of a runtime names a ResourceClaimTemplate (`resourceClaimTemplateName`) that is not among the objects checked. It may exist in the cluster; a pod's claim names a template of the pod's own namespace, so where it does not exist the TrainJob's pods stay Pending.",
        "Check the templates with the runtime (`jax-runtimes render` writes them beside it: validate both files), or make sure the template exists in every namespace that runs TrainJobs of the runtime.";
    DRA_COMPUTE_DOMAIN = "dra/compute-domain", Warning, Accelerators,
        "A runtime whose DRA fabric needs an NVIDIA ComputeDomain (GKE A4X Max: multi-node NVLink through IMEX) does not claim the ComputeDomain's channel, or the ComputeDomain given with it expects fewer nodes (`spec.numNodes`) than the runtime runs: without the channel NVLink between the nodes (NVLS) stays off; with too few nodes, a driver that gates on `numNodes` holds or mixes up the pods.",
        "Claim the channel in the pod (`resourceClaims[]` named as the fabric's claim, made from the template the ComputeDomain's `spec.channel.resourceClaimTemplate.name` names), as `jax-runtimes render` writes it, and give the ComputeDomain the runtime's `numNodes`.";
    DRA_DEVICE_CLASS = "dra/device-class", Warning, Accelerators,
        "A ResourceClaimTemplate that a runtime's pod claim is made from does not request the DeviceClass the runtime's DRA fabric (its `jax-runtimes.dev/interconnect` annotation) claims, e.g. `mrdma.google.com` for GKE A4X Max: the pods get other devices than the fabric's NICs, or stay Pending.",
        "Request the fabric's DeviceClass in the template (`exactly.deviceClassName`), as `jax-runtimes render` writes it, or annotate the runtime with the fabric it does use.";
}
