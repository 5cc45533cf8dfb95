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
}
