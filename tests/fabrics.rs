//! The GPU fabrics jax-runtimes wires, compared field by field with the vendors' own published
//! example manifests. Each `Vendor` below holds the facts of one manifest (which annotation, which
//! host path at which mount, which image, resource or variable), with the repository, path and
//! commit it was read at; the facts only, not the manifests' text. The runtimes are those of
//! tests/golden/fabrics/catalog.yaml (the golden test pins their exact text); here they are checked
//! against what the vendors run. Where jax-runtimes deliberately does otherwise, the difference is
//! named in `differs` and checked too.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;

use serde_json::{json, Value};
use support::{node_container as node, node_pod as pod, node_template as template};

fn runtimes() -> BTreeMap<String, Value> {
    let path = support::root().join("tests/golden/fabrics/catalog.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let out = jax_runtimes::generate(&support::parse("catalog.yaml", &text));
    let errors: Vec<String> = out.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let infos: Vec<String> = out.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(infos.is_empty(), "every fabric runtime of the golden catalog is wired without a finding: {infos:?}");
    out.runtimes.into_iter().map(|r| (support::name_of(&r.object).to_string(), r.object)).collect()
}

fn sidecar<'a>(rt: &'a Value, name: &str) -> &'a Value {
    let found = pod(rt)["initContainers"].as_array().and_then(|a| a.iter().find(|c| c["name"] == name));
    found.unwrap_or_else(|| panic!("no sidecar {name} in {}", pod(rt)))
}

fn annotation<'a>(rt: &'a Value, key: &str) -> Option<&'a str> {
    template(rt)["metadata"]["annotations"][key].as_str()
}

fn env(c: &Value) -> BTreeMap<String, String> {
    c["env"]
        .as_array()
        .map(|a| a.iter().map(|e| (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default()
}

/// Mount path -> what is mounted there: `hostPath:<path>`, `emptyDir`, `emptyDir:Memory`.
fn mounts(rt: &Value, c: &Value) -> BTreeMap<String, String> {
    let volumes: BTreeMap<&str, &Value> = pod(rt)["volumes"].as_array().unwrap().iter().map(|v| (v["name"].as_str().unwrap(), v)).collect();
    c["volumeMounts"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| {
                    let v = volumes.get(m["name"].as_str().unwrap()).unwrap_or_else(|| panic!("mount of a missing volume: {m}"));
                    let what = if let Some(p) = v["hostPath"]["path"].as_str() {
                        format!("hostPath:{p}")
                    } else if v["emptyDir"]["medium"] == "Memory" {
                        "emptyDir:Memory".to_string()
                    } else if v.get("emptyDir").is_some() {
                        "emptyDir".to_string()
                    } else {
                        format!("{v}")
                    };
                    (m["mountPath"].as_str().unwrap().to_string(), what)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn capabilities(c: &Value) -> Vec<String> {
    c["securityContext"]["capabilities"]["add"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn resources(c: &Value, which: &str) -> BTreeMap<String, String> {
    c["resources"][which]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect())
        .unwrap_or_default()
}

/// `eth0: default, eth1: vpc1, ...` from the interfaces annotation.
fn interfaces(rt: &Value) -> Vec<(String, String)> {
    let text = annotation(rt, "networking.gke.io/interfaces").unwrap_or_else(|| panic!("no interfaces annotation: {}", template(rt)));
    let list: Vec<Value> = serde_json::from_str(text).unwrap();
    list.iter().map(|i| (i["interfaceName"].as_str().unwrap().to_string(), i["network"].as_str().unwrap().to_string())).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn devices(rt: &Value, container: &str) -> Vec<String> {
    let text = annotation(rt, &format!("devices.gke.io/container.{container}")).unwrap_or_else(|| panic!("no device list for {container}"));
    let list: Vec<Value> = jax_runtimes::yaml::parse_one(text).unwrap().as_array().unwrap().clone();
    list.iter().map(|d| d["path"].as_str().unwrap().to_string()).collect()
}

fn assert_env_has(c: &Value, want: &[(&str, &str)], ctx: &str) {
    let have = env(c);
    for (k, v) in want {
        assert_eq!(have.get(*k).map(String::as_str), Some(*v), "{ctx}: env {k}");
    }
}

fn assert_mounts_have(rt: &Value, c: &Value, want: &[(&str, &str)], ctx: &str) {
    let have = mounts(rt, c);
    for (path, what) in want {
        assert_eq!(have.get(*path).map(String::as_str), Some(*what), "{ctx}: mount {path} in {have:?}");
    }
}

const GPUS_8: [&str; 8] =
    ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3", "/dev/nvidia4", "/dev/nvidia5", "/dev/nvidia6", "/dev/nvidia7"];

// ---------------------------------------------------------------------------------------------
// GKE

/// GoogleCloudPlatform/container-engine-accelerators @992db81257553607f1477945f1b3219632991829
/// `gpudirect-tcpxo/nccl-test-latest.yaml` (pod `nccl-test-host-1`, last changed abbe8ddf), and
/// `gpudirect-tcpxo/README.md` release "Jan 9, 2026", section "NCCL configs".
#[test]
fn gke_a3_mega_matches_the_tcpxo_nccl_test() {
    let rts = runtimes();
    let rt = &rts["gke-a3-mega"];
    let ctx = "A3 Mega";
    assert_eq!(annotation(rt, "networking.gke.io/default-interface"), Some("eth0"));
    let mut want = vec![("eth0", "default".to_string())];
    let nets: Vec<String> = (1..=8).map(|i| format!("vpc{i}")).collect();
    let names: Vec<String> = (1..=8).map(|i| format!("eth{i}")).collect();
    want.extend(names.iter().map(|n| n.as_str()).zip(nets.iter().cloned()));
    assert_eq!(interfaces(rt), want.iter().map(|(a, b)| (a.to_string(), b.clone())).collect::<Vec<_>>());
    let mut dev: Vec<&str> = GPUS_8.to_vec();
    dev.extend(["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/dmabuf_import_helper"]);
    assert_eq!(devices(rt, "tcpxo-daemon"), dev);
    assert!(pod(rt).get("hostNetwork").is_none(), "{ctx}: hostNetwork stays off (commented out in the test)");

    let d = sidecar(rt, "tcpxo-daemon");
    assert_eq!(d["image"], "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21");
    assert_eq!(d["imagePullPolicy"], "Always");
    assert_eq!(d["command"], json!(["/bin/sh", "-c"]));
    let args = d["args"][0].as_str().unwrap();
    assert!(
        args.contains("chmod 755 /fts/entrypoint_rxdm_container.sh") && args.contains("/fts/entrypoint_rxdm_container.sh --num_hops=2"),
        "{args}"
    );
    assert_eq!(capabilities(d), ["NET_ADMIN", "NET_BIND_SERVICE"]);
    assert_env_has(d, &[("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")], ctx);
    assert_mounts_have(
        rt,
        d,
        &[
            ("/usr/local/nvidia/lib64", "hostPath:/home/kubernetes/bin/nvidia/lib64"),
            ("/hostsysfs", "hostPath:/sys"),
            ("/hostprocsysfs", "hostPath:/proc/sys"),
        ],
        ctx,
    );
    // Differs on purpose: the daemon is a native sidecar (an init container that keeps running), as
    // xpk's tcpxo_decorator.py and CEA gpudirect-tcpxo/best-practice.md "Automatic Sidecar
    // Termination" do, so that the Job completes when the trainer exits; the test pod lists it
    // as a plain container.
    assert_eq!(d["restartPolicy"], "Always");

    let n = node(rt);
    assert_env_has(
        n,
        &[("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64"), ("NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices")],
        ctx,
    );
    assert_mounts_have(
        rt,
        n,
        &[
            ("/usr/local/nvidia/lib64", "hostPath:/home/kubernetes/bin/nvidia/lib64"),
            ("/dev/shm", "emptyDir:Memory"),
            ("/dev/aperture_devices", "hostPath:/dev/aperture_devices"),
        ],
        ctx,
    );
    assert_eq!(resources(n, "limits")["nvidia.com/gpu"], "8");
    // README "Jan 9, 2026" NCCL configs, with its lib directory placeholder `/usr/local/tcpxo/lib64/`
    // replaced by the directory the node installer fills (nccl-tcpxo-installer.yaml copies the
    // plugin into /home/kubernetes/bin/nvidia/lib64, mounted at /usr/local/nvidia/lib64).
    let readme = [
        ("NCCL_FASTRAK_CTRL_DEV", "eth0"),
        ("NCCL_FASTRAK_IFNAME", "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"),
        ("NCCL_SOCKET_IFNAME", "eth0"),
        ("NCCL_CROSS_NIC", "0"),
        ("NCCL_PROTO", "Simple,LL128"),
        ("NCCL_MIN_NCHANNELS", "4"),
        ("NCCL_TUNER_PLUGIN", "libnccl-tuner.so"),
        ("NCCL_TUNER_CONFIG_PATH", "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto"),
        ("NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "/usr/local/nvidia/lib64/a3plus_guest_config.textproto"),
        ("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"),
        ("NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072"),
        ("NCCL_P2P_NET_CHUNKSIZE", "524288"),
        ("NCCL_P2P_PCI_CHUNKSIZE", "524288"),
        ("NCCL_P2P_NVL_CHUNKSIZE", "1048576"),
        ("NCCL_FASTRAK_NUM_FLOWS", "2"),
        ("NCCL_FASTRAK_USE_SNAP", "1"),
        ("NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000"),
        ("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0"),
        ("NCCL_BUFFSIZE", "8388608"),
        ("NCCL_NET_GDR_LEVEL", "PIX"),
        ("NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0"),
        ("NCCL_FASTRAK_USE_LLCM", "1"),
        ("NCCL_NVLS_ENABLE", "1"),
    ];
    assert_env_has(n, &readme, ctx);
}

/// GoogleCloudPlatform/container-engine-accelerators @992db81 `gpudirect-tcpx/nccl-test-latest.yaml`
/// (last changed 089e0224) and `gpudirect-tcpx/nccl-config.yaml` (the NCCL env of `run-nccl.sh`).
#[test]
fn gke_a3_high_matches_the_tcpx_nccl_test() {
    let rts = runtimes();
    let rt = &rts["gke-a3-high"];
    let ctx = "A3 High";
    assert_eq!(annotation(rt, "networking.gke.io/default-interface"), Some("eth0"));
    assert_eq!(interfaces(rt), pairs(&[("eth0", "default"), ("eth1", "vpc1"), ("eth2", "vpc2"), ("eth3", "vpc3"), ("eth4", "vpc4")]));
    let mut dev: Vec<&str> = GPUS_8.to_vec();
    dev.extend(["/dev/nvidiactl", "/dev/nvidia-uvm"]);
    assert_eq!(devices(rt, "tcpx-daemon"), dev);
    let d = sidecar(rt, "tcpx-daemon");
    assert_eq!(d["image"], "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12");
    assert_eq!(d["imagePullPolicy"], "Always");
    let cmd: Vec<&str> = d["command"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(
        cmd[..8],
        [
            "/tcpgpudmarxd/build/app/tcpgpudmarxd",
            "--gpu_nic_preset",
            "a3vm",
            "--gpu_shmem_type",
            "fd",
            "--uds_path",
            "/run/tcpx",
            "--setup_param"
        ]
    );
    // The setup parameter is xpk's spelling (tcpx_decorator.py), quotes without the test's backslashes.
    assert_eq!(cmd[8], "\"--verbose 128 2 0 \"");
    assert_eq!(capabilities(d), ["NET_ADMIN"]);
    assert_env_has(d, &[("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")], ctx);
    assert_mounts_have(
        rt,
        d,
        &[
            ("/usr/local/nvidia/lib64", "hostPath:/home/kubernetes/bin/nvidia/lib64"),
            ("/hostsysfs", "hostPath:/sys"),
            ("/hostprocsysfs", "hostPath:/proc/sys"),
        ],
        ctx,
    );
    let n = node(rt);
    assert_eq!(capabilities(n), ["IPC_LOCK"]);
    assert_env_has(n, &[("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")], ctx);
    assert_mounts_have(rt, n, &[("/usr/local/nvidia/lib64", "hostPath:/home/kubernetes/bin/nvidia/lib64")], ctx);
    // The daemon's socket directory (/run/tcpx) is the trainer's /tmp, one volume. Differs on
    // purpose: an emptyDir (cluster-toolkit enable-tcpx-in-workload.py) instead of the test's
    // hostPath /run/tcpx, so the socket stays private to the pod.
    assert_eq!(mounts(rt, d)["/run/tcpx"], "emptyDir");
    assert_eq!(mounts(rt, n)["/tmp"], "emptyDir");
    let daemon_socket = d["volumeMounts"].as_array().unwrap().iter().find(|m| m["mountPath"] == "/run/tcpx").unwrap()["name"].clone();
    let node_tmp = n["volumeMounts"].as_array().unwrap().iter().find(|m| m["mountPath"] == "/tmp").unwrap()["name"].clone();
    assert_eq!(daemon_socket, node_tmp);
    assert_env_has(
        n,
        &[
            ("NCCL_SOCKET_IFNAME", "eth0"),
            ("NCCL_ALGO", "Ring,Tree"),
            ("NCCL_PROTO", "Simple"),
            ("NCCL_CROSS_NIC", "0"),
            ("NCCL_NET_GDR_LEVEL", "PIX"),
            ("NCCL_P2P_PXN_LEVEL", "0"),
            ("NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4"),
            ("NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0"),
            ("NCCL_DYNAMIC_CHUNK_SIZE", "524288"),
            ("NCCL_P2P_NET_CHUNKSIZE", "524288"),
            ("NCCL_P2P_PCI_CHUNKSIZE", "524288"),
            ("NCCL_P2P_NVL_CHUNKSIZE", "1048576"),
            ("NCCL_BUFFSIZE", "4194304"),
            ("NCCL_NSOCKS_PERTHREAD", "4"),
            ("NCCL_SOCKET_NTHREADS", "1"),
            ("NCCL_GPUDIRECTTCPX_TX_BINDINGS", "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177"),
            ("NCCL_GPUDIRECTTCPX_RX_BINDINGS", "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191"),
            ("NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000"),
        ],
        ctx,
    );
}

/// GoogleCloudPlatform/container-engine-accelerators @992db81 `gpudirect-rdma/nccl-test.yaml` (A3
/// Ultra) and `nccl-test-a4.yaml` (A4), last changed 155bfa49, `nccl-test-imex-a4x.yaml` (A4X);
/// the NCCL env the tests get from `set_nccl_env.sh`, as GoogleCloudPlatform/kubernetes-engine-samples
/// @2b503651 `ai-ml/verl-on-gke/runtime-env.yaml` writes it out (tuner file per machine).
#[test]
fn gke_a3_ultra_a4_and_a4x_match_the_rdma_nccl_tests() {
    let rts = runtimes();
    let rdma8: Vec<(String, String)> = std::iter::once(("eth0".to_string(), "default".to_string()))
        .chain((0..8).map(|i| (format!("eth{}", i + 2), format!("rdma-{i}"))))
        .collect();
    let rdma4: Vec<(String, String)> = rdma8[..5].to_vec();
    for (name, nics, gpus, tuner) in [
        ("gke-a3-ultra", &rdma8, "8", Some("/usr/local/gib/configs/tuner_config_a3u.txtpb")),
        ("gke-a4", &rdma8, "8", Some("/usr/local/gib/configs/tuner_config_a4.txtpb")),
        ("gke-a4x", &rdma4, "4", None),
    ] {
        let rt = &rts[name];
        assert_eq!(annotation(rt, "networking.gke.io/default-interface"), Some("eth0"), "{name}");
        assert_eq!(&interfaces(rt), nics, "{name}");
        assert!(pod(rt).get("initContainers").is_none(), "{name}: GPUDirect RDMA runs no daemon in the pod");
        assert!(pod(rt).get("hostNetwork").is_none() && pod(rt).get("hostPID").is_none(), "{name}: hostNetwork and hostPID off");
        let n = node(rt);
        assert!(capabilities(n).is_empty(), "{name}: no securityContext in the test");
        assert_mounts_have(
            rt,
            n,
            &[
                ("/usr/local/nvidia", "hostPath:/home/kubernetes/bin/nvidia"),
                ("/usr/local/gib", "hostPath:/home/kubernetes/bin/gib"),
                ("/dev/shm", "emptyDir:Memory"),
            ],
            name,
        );
        assert_eq!(resources(n, "limits")["nvidia.com/gpu"], gpus, "{name}");
        assert_env_has(
            n,
            &[
                ("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64"),
                ("NCCL_NET_PLUGIN", "/usr/local/gib/lib64/libnccl-net_internal.so"),
                ("NCCL_CROSS_NIC", "0"),
                ("NCCL_NET_GDR_LEVEL", "PIX"),
                ("NCCL_P2P_NET_CHUNKSIZE", "131072"),
                ("NCCL_NVLS_CHUNKSIZE", "524288"),
                ("NCCL_IB_ADAPTIVE_ROUTING", "1"),
                ("NCCL_IB_QPS_PER_CONNECTION", "4"),
                ("NCCL_IB_TC", "52"),
                ("NCCL_IB_FIFO_TC", "84"),
            ],
            name,
        );
        assert_eq!(env(n).get("NCCL_TUNER_CONFIG_PATH").map(String::as_str), tuner, "{name}");
    }
    // A4X hosts are arm64 and tainted for it (CEA nccl-test-imex-a4x.yaml, xpk arm template).
    let arm =
        pod(&rts["gke-a4x"])["tolerations"].as_array().unwrap().iter().any(|t| t["key"] == "kubernetes.io/arch" && t["value"] == "arm64");
    assert!(arm);
}

/// A cluster's own names: the interfaces annotation and the daemon image follow the runtime's
/// `fabric` settings.
#[test]
fn gke_network_names_and_the_daemon_image_are_the_clusters() {
    let rts = runtimes();
    let rt = &rts["gke-a3-mega-own-networks"];
    let nets = interfaces(rt);
    assert_eq!(nets.len(), 9);
    assert_eq!(nets[3], ("eth3".to_string(), "gpu-net-3".to_string()));
    assert_eq!(sidecar(rt, "tcpxo-daemon")["image"], "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20");
}

// ---------------------------------------------------------------------------------------------
// EKS

/// aws-samples/awsome-distributed-training @7217859f67bc693c52ff175ccc6082c41dbd7a1b
/// `micro-benchmarks/nccl-tests/kubernetes/nccl-tests.yaml` (last changed a7b62b9f), worker pod;
/// the other instance types' `vpc.amazonaws.com/efa` from aws/karpenter-provider-aws @1d927085
/// `website/content/en/docs/reference/instance-types.md`.
#[test]
fn eks_p5_matches_the_efa_nccl_test_and_every_p_instance_requests_all_its_efa_devices() {
    let rts = runtimes();
    let rt = &rts["eks-p5"];
    assert_eq!(pod(rt)["nodeSelector"]["node.kubernetes.io/instance-type"], "p5.48xlarge");
    let n = node(rt);
    let (req, lim) = (resources(n, "requests"), resources(n, "limits"));
    for (k, v) in [("nvidia.com/gpu", "8"), ("hugepages-2Mi", "5120Mi"), ("vpc.amazonaws.com/efa", "32")] {
        assert_eq!((req.get(k).map(String::as_str), lim.get(k).map(String::as_str)), (Some(v), Some(v)), "p5: {k} requested = limited");
    }
    // Differs on purpose: the sample's 32000Mi memory is a request here, not a limit (a memory
    // limit kills a JAX process that grows past it); Kubernetes needs a cpu or memory request
    // beside hugepages.
    assert_eq!(req.get("memory").map(String::as_str), Some("32000Mi"));
    assert!(!lim.contains_key("memory"));
    assert_eq!(mounts(rt, n)["/dev/shm"], "emptyDir:Memory", "the sample mounts the host's /dev/shm; a memory emptyDir is the pod's own");
    assert!(
        pod(rt).get("hostNetwork").is_none() && capabilities(n).is_empty() && template(rt).get("metadata").is_none(),
        "no hostNetwork, capabilities or annotations"
    );
    assert_env_has(n, &[("FI_PROVIDER", "efa")], "p5");

    for (name, instance, efa) in [
        ("eks-p4d", "p4d.24xlarge", "4"),
        ("eks-p4de", "p4de.24xlarge", "4"),
        ("eks-p5-4xlarge", "p5.4xlarge", "1"),
        ("eks-p5e", "p5e.48xlarge", "32"),
        ("eks-p5en", "p5en.48xlarge", "16"),
        ("eks-p6-b200", "p6-b200.48xlarge", "8"),
        ("eks-p6e-gb200", "p6e-gb200.36xlarge", "4"),
    ] {
        let rt = &rts[name];
        assert_eq!(pod(rt)["nodeSelector"]["node.kubernetes.io/instance-type"], instance, "{name}");
        let n = node(rt);
        assert_eq!(resources(n, "limits").get("vpc.amazonaws.com/efa").map(String::as_str), Some(efa), "{name}");
        assert_eq!(resources(n, "requests").get("vpc.amazonaws.com/efa").map(String::as_str), Some(efa), "{name}");
        assert!(!resources(n, "limits").contains_key("hugepages-2Mi"), "{name}: huge pages only where AWS's sample requests them");
    }
    assert_eq!(rts["eks-p5-no-fabric"]["metadata"]["annotations"]["jax-runtimes.dev/interconnect"], "none");
    assert!(!resources(node(&rts["eks-p5-no-fabric"]), "limits").contains_key("vpc.amazonaws.com/efa"));
}

// ---------------------------------------------------------------------------------------------
// AKS

/// Azure/aks-rdma-infiniband @700dabb4fe0451d482ae09a373617ed68658b021
/// `website/docs/configurations/02-gpu-drivers.md` "Usage of GPUDirect RDMA / 1. SR-IOV Device
/// Plugin" (last changed 51c3c34a), with the NCCL env of `tests/scenarios/k8s/values.yaml`
/// (`ncclEnvVars`) and `templates/mpi-job.yaml`; MI300X from `templates/rccl-mpi-job.yaml`.
#[test]
fn aks_nd_sizes_match_the_sriov_infiniband_example() {
    let rts = runtimes();
    for (name, resource) in [
        ("aks-nda100v4", "nvidia.com/gpu"),
        ("aks-ndma100v4", "nvidia.com/gpu"),
        ("aks-ndh100v5", "nvidia.com/gpu"),
        ("aks-ndh200v5", "nvidia.com/gpu"),
        ("aks-ndmi300xv5", "amd.com/gpu"),
    ] {
        let rt = &rts[name];
        let n = node(rt);
        assert_eq!(capabilities(n), ["IPC_LOCK"], "{name}");
        assert!(n["securityContext"].get("privileged").is_none(), "{name}: not privileged");
        for which in ["requests", "limits"] {
            let r = resources(n, which);
            assert_eq!(
                (r.get(resource).map(String::as_str), r.get("rdma/ib").map(String::as_str)),
                (Some("8"), Some("8")),
                "{name} {which}"
            );
        }
        assert!(pod(rt).get("hostNetwork").is_none() && template(rt).get("metadata").is_none(), "{name}: no hostNetwork, no annotations");
        assert_env_has(n, &[("NCCL_IB_DISABLE", "0"), ("NCCL_NET_GDR_LEVEL", "SYS")], name);
        let cuda_order = env(n).get("CUDA_DEVICE_ORDER").cloned();
        if resource == "nvidia.com/gpu" {
            assert_eq!(cuda_order.as_deref(), Some("PCI_BUS_ID"), "{name}");
        } else {
            assert_eq!(cuda_order, None, "{name}: the RCCL test sets no CUDA variable");
        }
    }
    // The RDMA shared device plugin (01-network-operator.md): one `rdma/shared_ib` per pod.
    let shared = resources(node(&rts["aks-ndh100v5-shared-ib"]), "limits");
    assert_eq!(shared.get("rdma/shared_ib").map(String::as_str), Some("1"));
    assert!(!shared.contains_key("rdma/ib"));
}

/// Any cluster: the fabric is what the runtime says.
#[test]
fn generic_clusters_wire_the_rdma_resource_they_name() {
    let rts = runtimes();
    let rt = &rts["generic-rdma"];
    let n = node(rt);
    assert_eq!(resources(n, "requests").get("rdma/rdma_shared_device_a").map(String::as_str), Some("1"));
    assert_eq!(capabilities(n), ["IPC_LOCK"]);
    assert_env_has(n, &[("NCCL_IB_HCA", "mlx5")], "generic");
    assert_eq!(rt["metadata"]["annotations"]["jax-runtimes.dev/interconnect"], "custom");
}

/// What validate says about these runtimes: nothing (they use their fabric); without the fabric,
/// the warning.
#[test]
fn the_wired_runtimes_pass_validate_and_stripped_ones_are_warned() {
    let rts = runtimes();
    for (name, rt) in &rts {
        // Only the info finding every hand-checked runtime gets (how long a TrainJob name may be).
        let found: Vec<String> = jax_runtimes::validate::object(rt, &Default::default())
            .iter()
            .filter(|d| d.rule.id != "jobset/trainjob-name-length")
            .map(|d| d.to_string())
            .collect();
        assert!(found.is_empty(), "{name}: {found:?}");
    }
    let mut stripped = rts["eks-p5"].clone();
    for which in ["requests", "limits"] {
        stripped["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["resources"]
            [which]
            .as_object_mut()
            .unwrap()
            .remove("vpc.amazonaws.com/efa");
    }
    stripped["metadata"]["annotations"].as_object_mut().unwrap().remove("jax-runtimes.dev/interconnect");
    let rules: Vec<&str> = jax_runtimes::validate::object(&stripped, &Default::default())
        .iter()
        .map(|d| d.rule.id)
        .filter(|id| *id != "jobset/trainjob-name-length")
        .collect();
    assert_eq!(rules, ["interconnect/unused"]);
}
