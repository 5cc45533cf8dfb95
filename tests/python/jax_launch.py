#!/usr/bin/env python3
"""Launch a generated JAX runtime the way Kubeflow Trainer and JobSet would, as local processes.

For one ClusterTrainingRuntime / TrainingRuntime (read from YAML, one or more documents), this builds
what each pod of the `node` replicatedJob would get and runs numNodes local processes with it:

  * the runtime's `node` container env (fieldRef values resolved as the kubelet would for that pod,
    `$(VAR)` references expanded as Kubernetes does), then the Trainer JAX plugin's variables
    upserted on top: JAX_NUM_PROCESSES = numNodes, JAX_PROCESS_ID = the pod's completion index,
    JAX_COORDINATOR_ADDRESS = `<trainjob>-node-0-0.<trainjob>:29500`, mapped to 127.0.0.1 and a free
    local port that stands in for 29500 (all processes share one host here);
  * the container's command/args, where a TrainJob `trainer.command`/`args` replaces the runtime's
    (Trainer's builder does exactly that). If the runtime has no command, the TrainJob command
    defaults to `python jax_psum_job.py`, the test program next to this file, as the SDK would
    supply one;
  * for GPU/TPU runtimes, JAX_PLATFORMS is forced to `cpu` (this machine has no accelerator) and each
    process gets as many CPU devices as the node requests accelerators, so the device arithmetic
    matches the real node. Both are printed.

It then checks every process's report: process_index == its JAX_PROCESS_ID, process_count ==
numNodes, global device count == numNodes * local devices, and the psum over all devices is right.
Any failure (a process crashing, timing out, a wrong number) prints why and exits 1. Bad input exits 2.

Fidelity limits: no Kubernetes, no DNS, no image. The processes run this machine's Python (the venv
that runs this script) with a clean environment, in the directory of this script (as an image WORKDIR).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
JOB_PROGRAM = "jax_psum_job.py"

# Facts from Kubeflow Trainer v2.3.0 (pkg/runtime/framework/plugins/jax/jax.go, pkg/constants).
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER_ANCESTOR = "trainer"
NODE = "node"
COORDINATOR_PORT = 29500
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")

ACCELERATOR_RESOURCES = {
    "google.com/tpu": "tpu",
    "nvidia.com/gpu": "gpu",
    "amd.com/gpu": "gpu",
}

REPORT_PREFIX = "JAX_E2E_REPORT "


class InputError(Exception):
    """The runtime or the arguments cannot be launched at all (exit 2)."""


def log(msg: str) -> None:
    print(f"[jax-launch] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# Reading the runtime


def load_runtime(paths: list[str], name: str | None) -> tuple[dict, str]:
    docs: list[tuple[dict, str]] = []
    for p in paths:
        text = sys.stdin.read() if p == "-" else Path(p).read_text()
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") in RUNTIME_KINDS:
                docs.append((doc, "<stdin>" if p == "-" else p))
    if not docs:
        raise InputError(f"no ClusterTrainingRuntime/TrainingRuntime document in {paths}")
    if name is not None:
        found = [d for d in docs if (d[0].get("metadata") or {}).get("name") == name]
        if not found:
            names = sorted(str((d.get("metadata") or {}).get("name")) for d, _ in docs)
            raise InputError(f"no runtime named {name!r}; the input has: {', '.join(names)}")
        return found[0]
    if len(docs) > 1:
        names = sorted(str((d.get("metadata") or {}).get("name")) for d, _ in docs)
        raise InputError(f"the input has {len(docs)} runtimes; pick one with --name ({', '.join(names)})")
    return docs[0]


def get(obj, path: str, default=None):
    cur = obj
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            return default
        cur = cur[key]
    return cur


def trainer_job_and_container(runtime: dict, where: str) -> tuple[dict, dict]:
    rjobs = get(runtime, "spec.template.spec.replicatedJobs") or []
    trainer_jobs = [
        rj for rj in rjobs
        if get(rj, "template.metadata.labels", {}).get(ANCESTOR_LABEL) == TRAINER_ANCESTOR
    ]
    if len(trainer_jobs) != 1:
        raise InputError(
            f"{where}: spec.template.spec.replicatedJobs: expected exactly one replicatedJob labelled "
            f"{ANCESTOR_LABEL}: {TRAINER_ANCESTOR}, found {len(trainer_jobs)}"
        )
    rjob = trainer_jobs[0]
    if rjob.get("name") != NODE:
        raise InputError(
            f"{where}: the trainer replicatedJob is named {rjob.get('name')!r}; the JAX plugin hard-codes "
            f"the coordinator host <trainjob>-{NODE}-0-0.<trainjob>, so it must be named {NODE!r}"
        )
    containers = get(rjob, "template.spec.template.spec.containers") or []
    node = [c for c in containers if c.get("name") == NODE]
    if not node:
        raise InputError(
            f"{where}: replicatedJobs[{NODE}]: no container named {NODE!r}; the JAX plugin and the "
            f"TrainJob command/env only target that container"
        )
    return rjob, node[0]


def check_network(runtime: dict, trainjob: str, where: str) -> None:
    net = get(runtime, "spec.template.spec.network") or {}
    sub = net.get("subdomain")
    if sub is not None and sub != trainjob:
        raise InputError(
            f"{where}: spec.template.spec.network.subdomain is {sub!r}; pods would live under that "
            f"subdomain, but JAX_COORDINATOR_ADDRESS points at <trainjob>-node-0-0.<trainjob>, which "
            f"would not resolve. Leave network.subdomain unset."
        )
    if net.get("enableDNSHostnames") is False:
        raise InputError(
            f"{where}: spec.template.spec.network.enableDNSHostnames is false; the coordinator host "
            f"name would not resolve"
        )


def accelerator(container: dict) -> tuple[str, int | None, str | None]:
    """(kind, count per node, resource name) from the node container's resources."""
    res = container.get("resources") or {}
    for section in ("limits", "requests"):
        for key, kind in ACCELERATOR_RESOURCES.items():
            if key in (res.get(section) or {}):
                return kind, int(str(res[section][key])), key
    return "cpu", None, None


# ---------------------------------------------------------------------------------------------
# What the kubelet does to env and command


_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")


def expand(value: str, env: dict[str, str]) -> str:
    """Kubernetes $(VAR) expansion: defined names are replaced, $$ escapes, the rest stays."""

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        return env[name] if name in env else m.group(0)

    return _REF.sub(sub, value)


def field_ref_value(path: str, pod: dict) -> str:
    m = re.fullmatch(r"metadata\.(annotations|labels)\['([^']+)'\]", path)
    if m:
        table = pod[m.group(1)]
        if m.group(2) not in table:
            raise InputError(f"fieldRef {path!r}: the pod would have no such {m.group(1)[:-1]}")
        return table[m.group(2)]
    simple = {
        "metadata.name": pod["name"],
        "metadata.namespace": pod["namespace"],
        "spec.nodeName": pod["node_name"],
        "spec.serviceAccountName": "default",
        "status.podIP": "127.0.0.1",
        "status.hostIP": "127.0.0.1",
    }
    if path in simple:
        return simple[path]
    raise InputError(f"fieldRef {path!r} is not reproduced by this harness")


def resolve_env(entries: list[dict], pod: dict, base: dict[str, str], where: str) -> dict[str, str]:
    env = dict(base)
    for i, e in enumerate(entries):
        name = e.get("name")
        if "value" in e or "valueFrom" not in e:
            env[name] = expand(str(e.get("value", "")), env)
            continue
        src = e["valueFrom"]
        if "fieldRef" in src:
            env[name] = field_ref_value(src["fieldRef"]["fieldPath"], pod)
        else:
            raise InputError(f"{where}: env[{i}] {name}: valueFrom {sorted(src)} is not reproduced here")
    return env


def upsert(entries: list[dict], new: dict) -> list[dict]:
    """Trainer's env upsert: replace in place by name, else append."""
    out = [dict(e) for e in entries]
    for i, e in enumerate(out):
        if e.get("name") == new["name"]:
            out[i] = new
            return out
    out.append(new)
    return out


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Launch and check


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runtime", nargs="+", help="runtime YAML file(s), or - for stdin (with --pods: pod files)")
    ap.add_argument("--pods", action="store_true",
                    help="the inputs are pods printed by `jax-runtimes preview --process N`, one per process "
                         "(0..N-1): launch each with its own env and command instead of building them from a runtime")
    ap.add_argument("--name", help="the runtime to launch when the input has several")
    ap.add_argument("--trainjob-name", default="e2e", help="TrainJob (and JobSet) name (default: e2e)")
    ap.add_argument("--trainjob-command", help="TrainJob spec.trainer.command, as a JSON list")
    ap.add_argument("--trainjob-args", help="TrainJob spec.trainer.args, as a JSON list")
    ap.add_argument("--trainjob-num-nodes", type=int,
                    help="TrainJob spec.trainer.numNodes (overrides the runtime's mlPolicy.numNodes)")
    ap.add_argument("--processes", type=int,
                    help="launch this many processes instead of numNodes (to prove a mismatch fails)")
    ap.add_argument("--local-devices", type=int,
                    help="CPU devices per process (default: the node's accelerator count, 1 for CPU)")
    ap.add_argument("--init-timeout", type=int, default=30,
                    help="seconds jax.distributed.initialize() waits for its peers (default 30)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds for the whole job (default 240)")
    a = ap.parse_args(argv)

    try:
        return launch_pods(a) if a.pods else launch(a)
    except InputError as e:
        print(f"[jax-launch] ERROR: {e}", file=sys.stderr, flush=True)
        return 2


def launch(a) -> int:
    runtime, source = load_runtime(a.runtime, a.name)
    name = get(runtime, "metadata.name", "<unnamed>")
    where = f"{source}: {runtime.get('kind')}/{name}"
    ml = get(runtime, "spec.mlPolicy") or {}
    if "jax" not in ml:
        raise InputError(f"{where}: spec.mlPolicy has no `jax`; the Trainer JAX plugin would inject nothing")
    rt_nodes = ml.get("numNodes", 1)
    num_nodes = a.trainjob_num_nodes if a.trainjob_num_nodes is not None else rt_nodes
    if not isinstance(num_nodes, int) or num_nodes < 1:
        raise InputError(f"{where}: spec.mlPolicy.numNodes: expected an integer >= 1, got {num_nodes!r}")
    _, container = trainer_job_and_container(runtime, where)
    check_network(runtime, a.trainjob_name, where)
    if container.get("envFrom"):
        raise InputError(f"{where}: container {NODE}: envFrom is not reproduced by this harness")

    kind, accel_count, accel_key = accelerator(container)
    processes = a.processes if a.processes is not None else num_nodes
    tj = a.trainjob_name

    # Command: TrainJob trainer.command / args replace the runtime's when set.
    tj_command = json.loads(a.trainjob_command) if a.trainjob_command else None
    tj_args = json.loads(a.trainjob_args) if a.trainjob_args else None
    if tj_command is None and not container.get("command"):
        tj_command = ["python", JOB_PROGRAM]
        log(f"runtime has no command; TrainJob trainer.command = {tj_command}")
    command = tj_command if tj_command is not None else list(container.get("command") or [])
    args = tj_args if tj_args is not None else list(container.get("args") or [])
    if not command:
        raise InputError(f"{where}: no command to run (the image entrypoint cannot be reproduced here)")

    # Env: runtime env, then the JAX plugin's upserts (jax.go EnforceMLPolicy).
    logical_coordinator = f"{tj}-{NODE}-0-0.{tj}:{COORDINATOR_PORT}"
    port = free_port()
    local_coordinator = f"127.0.0.1:{port}"
    entries = list(container.get("env") or [])
    for new in (
        {"name": "JAX_NUM_PROCESSES", "value": str(num_nodes)},
        {"name": "JAX_PROCESS_ID",
         "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"}}},
        {"name": "JAX_COORDINATOR_ADDRESS", "value": logical_coordinator},
    ):
        entries = upsert(entries, new)

    runtime_env_names = [e.get("name") for e in (container.get("env") or [])]
    log(f"runtime {runtime.get('kind')}/{name} from {source}")
    log(f"numNodes={num_nodes} (runtime {rt_nodes}); launching {processes} process(es); "
        f"accelerator={kind}" + (f" {accel_key}={accel_count}/node" if accel_key else ""))
    log(f"runtime env: {runtime_env_names or '(none)'}")
    log(f"JAX_COORDINATOR_ADDRESS {logical_coordinator} -> {local_coordinator} (port {port} stands in for 29500)")

    base = clean_env()

    logdir = Path(tempfile.mkdtemp(prefix=f"jax-launch-{name}-"))
    procs = []
    local_devices_expected = []
    for i in range(processes):
        pod_name = f"{tj}-{NODE}-0-{i}"
        pod = {
            "name": pod_name,
            "namespace": "default",
            "node_name": f"e2e-host-{i}",
            "annotations": {
                COMPLETION_INDEX_ANNOTATION: str(i),
                "jobset.sigs.k8s.io/jobset-name": tj,
                "jobset.sigs.k8s.io/replicatedjob-name": NODE,
                "jobset.sigs.k8s.io/job-index": "0",
                "jobset.sigs.k8s.io/replicatedjob-replicas": "1",
            },
            "labels": {
                COMPLETION_INDEX_ANNOTATION: str(i),
                "jobset.sigs.k8s.io/jobset-name": tj,
                "jobset.sigs.k8s.io/replicatedjob-name": NODE,
                "jobset.sigs.k8s.io/job-index": "0",
            },
        }
        # What the kubelet / Job controller add to every container of an Indexed Job pod.
        pod_base = dict(base, HOSTNAME=pod_name, JOB_COMPLETION_INDEX=str(i))
        env = resolve_env(entries, pod, pod_base, where)
        notes = []
        env["JAX_COORDINATOR_ADDRESS"] = env["JAX_COORDINATOR_ADDRESS"].replace(
            logical_coordinator, local_coordinator)
        if kind != "cpu":
            notes.append(f"JAX_PLATFORMS forced to cpu (runtime: {env.get('JAX_PLATFORMS', 'unset')})")
            env["JAX_PLATFORMS"] = "cpu"
        if a.local_devices is not None:
            local = a.local_devices
        elif "JAX_NUM_CPU_DEVICES" in env and kind == "cpu":
            local = int(env["JAX_NUM_CPU_DEVICES"])
        else:
            local = accel_count if accel_count else 1
        env["JAX_NUM_CPU_DEVICES"] = str(local)
        env["JAX_E2E_INIT_TIMEOUT_S"] = str(a.init_timeout)
        local_devices_expected.append(local)
        if i == 0:
            if kind != "cpu":
                notes.append(f"{local} CPU device(s) per process stand in for {accel_key}={accel_count}")
            for n in notes:
                log(n)
        argv = [expand(x, env) for x in command + args]
        if i == 0:
            log(f"command: {shlex.join(argv)} (cwd {HERE})")
        out = open(logdir / f"{pod_name}.log", "w+")
        p = subprocess.Popen(argv, cwd=HERE, env=env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        procs.append((i, pod_name, p, out, env["JAX_PROCESS_ID"]))

    return wait_and_check(f"runtime {name}", procs, num_nodes, local_devices_expected, a.timeout, logdir)


def clean_env() -> dict[str, str]:
    """The environment every process starts from: this venv's Python first, nothing inherited."""
    venv_bin = str(Path(sys.executable).parent)
    base = {
        "PATH": os.pathsep.join([venv_bin, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
    }
    if "TMPDIR" in os.environ:
        base["TMPDIR"] = os.environ["TMPDIR"]
    return base


def launch_pods(a) -> int:
    """One process per previewed pod, from nothing but what the pod says.

    Each pod is a `jax-runtimes preview` output: its `node` container's env (JAX_PROCESS_ID and
    JOB_COMPLETION_INDEX already resolved for that pod; other fieldRefs resolved here as the kubelet
    would), command and args. The only changes: JAX_COORDINATOR_ADDRESS, which must name pod 0
    (`<hostname>.<subdomain>:29500` of the pod with completion index 0), is pointed at 127.0.0.1
    and a free port (all processes share this host); for GPU/TPU pods JAX_PLATFORMS is forced to cpu
    with one CPU device per accelerator, as in the runtime mode.
    """
    pods: list[tuple[dict, str]] = []
    for p in a.runtime:
        text = sys.stdin.read() if p == "-" else Path(p).read_text()
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == "Pod":
                pods.append((doc, p))
    if not pods:
        raise InputError(f"no Pod document in {a.runtime}")

    def index(pod: dict) -> int:
        value = (get(pod, "metadata.annotations") or {}).get(COMPLETION_INDEX_ANNOTATION)
        if value is None or not str(value).isdigit():
            raise InputError(f"a pod without the {COMPLETION_INDEX_ANNOTATION} annotation")
        return int(value)

    pods.sort(key=lambda ps: index(ps[0]))
    indexes = [index(p) for p, _ in pods]
    if indexes != list(range(len(pods))):
        raise InputError(f"the pods must be processes 0..N-1 once each, got completion indexes {indexes}")
    n = len(pods)
    pod0 = pods[0][0]
    trainjob = (get(pod0, "metadata.labels") or {}).get("jobset.sigs.k8s.io/jobset-name", "<unnamed>")
    coordinator = f"{get(pod0, 'spec.hostname')}.{get(pod0, 'spec.subdomain')}:{COORDINATOR_PORT}"
    port = free_port()
    local_coordinator = f"127.0.0.1:{port}"
    log(f"TrainJob {trainjob}: {n} previewed pod(s); pod 0 is {coordinator}")
    log(f"JAX_COORDINATOR_ADDRESS {coordinator} -> {local_coordinator} (port {port} stands in for 29500)")

    base = clean_env()
    logdir = Path(tempfile.mkdtemp(prefix=f"jax-launch-pods-{trainjob}-"))
    procs = []
    local_devices_expected = []
    for i, (pod, source) in enumerate(pods):
        hostname = get(pod, "spec.hostname") or f"pod-{i}"
        where = f"{source}: pod {hostname}"
        containers = get(pod, "spec.containers") or []
        node = [c for c in containers if c.get("name") == NODE]
        if not node:
            raise InputError(f"{where}: no container named {NODE!r}")
        container = node[0]
        if container.get("envFrom"):
            raise InputError(f"{where}: container {NODE}: envFrom is not reproduced by this harness")
        meta = {
            "name": (get(pod, "metadata.generateName") or f"{hostname}-") + "abcde",
            "namespace": get(pod, "metadata.namespace") or "default",
            "node_name": f"e2e-host-{i}",
            "annotations": get(pod, "metadata.annotations") or {},
            "labels": get(pod, "metadata.labels") or {},
        }
        env = resolve_env(list(container.get("env") or []), meta, dict(base, HOSTNAME=hostname), where)
        for var in ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"):
            if var not in env:
                raise InputError(f"{where}: the pod has no {var}; the JAX plugin did not inject its env")
        if env["JAX_COORDINATOR_ADDRESS"] != coordinator:
            raise InputError(f"{where}: JAX_COORDINATOR_ADDRESS is {env['JAX_COORDINATOR_ADDRESS']!r}, but pod 0 is "
                             f"reachable as {coordinator!r}: the processes would not find the coordinator")
        env["JAX_COORDINATOR_ADDRESS"] = local_coordinator
        kind, accel_count, accel_key = accelerator(container)
        if kind != "cpu":
            if i == 0:
                log(f"JAX_PLATFORMS forced to cpu (pod: {env.get('JAX_PLATFORMS', 'unset')}); "
                    f"{accel_count} CPU device(s) per process stand in for {accel_key}={accel_count}")
            env["JAX_PLATFORMS"] = "cpu"
            local = accel_count or 1
        else:
            local = int(env.get("JAX_NUM_CPU_DEVICES", "1"))
        env["JAX_NUM_CPU_DEVICES"] = str(local)
        env["JAX_E2E_INIT_TIMEOUT_S"] = str(a.init_timeout)
        local_devices_expected.append(local)
        argv = [expand(x, env) for x in list(container.get("command") or []) + list(container.get("args") or [])]
        if not argv:
            raise InputError(f"{where}: no command (the image entrypoint cannot be reproduced here)")
        if i == 0:
            log(f"env of pod 0: {sorted(k for k in env if k not in base)}")
            log(f"command: {shlex.join(argv)} (cwd {HERE})")
        out = open(logdir / f"{hostname}.log", "w+")
        proc = subprocess.Popen(argv, cwd=HERE, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append((i, hostname, proc, out, env["JAX_PROCESS_ID"]))
    return wait_and_check(f"TrainJob {trainjob}", procs, n, local_devices_expected, a.timeout, logdir,
                          what="the previewed pod env")


def wait_and_check(subject: str, procs: list, num_nodes: int, local_devices_expected: list[int],
                   timeout: float, logdir: Path, what: str = "the runtime env") -> int:
    """Waits for every process, checks every report, prints PASSED or FAILED. Returns 0 or 1."""
    processes = len(procs)
    deadline = time.monotonic() + timeout
    timed_out = []
    for i, pod_name, p, out, _ in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out.append(pod_name)
    for i, pod_name, p, out, _ in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()

    failures: list[str] = []
    expected_global = num_nodes * (local_devices_expected[0] if local_devices_expected else 0)
    expected_psum = expected_global * (expected_global + 1) // 2
    for i, pod_name, p, out, pid_env in procs:
        out.seek(0)
        text = out.read()
        out.close()
        reports = [ln[len(REPORT_PREFIX):] for ln in text.splitlines() if ln.startswith(REPORT_PREFIX)]
        problems = []
        if pod_name in timed_out:
            problems.append(f"did not finish within {timeout:.0f}s (killed)")
        elif p.returncode != 0:
            problems.append(f"exited with status {p.returncode}")
        if not reports:
            problems.append("printed no report")
        else:
            r = json.loads(reports[-1])
            want = {
                "process_index": int(pid_env),
                "process_count": num_nodes,
                "local_device_count": local_devices_expected[i],
                "global_device_count": expected_global,
                "psum": expected_psum,
                "platform": "cpu",
            }
            for k, v in want.items():
                if r.get(k) != v:
                    problems.append(f"{k} = {r.get(k)!r}, expected {v!r}")
            if not problems:
                log(f"{pod_name}: ok: process {r['process_index']}/{r['process_count']}, "
                    f"{r['local_device_count']} local / {r['global_device_count']} global devices, "
                    f"psum {r['psum']}")
        if problems:
            failures.append(f"{pod_name} (JAX_PROCESS_ID={pid_env}): " + "; ".join(problems))
            lines = text.splitlines()
            errors = [ln for ln in lines if re.search(r"Error|DEADLINE|Terminating", ln)][:3]
            shown = errors + ["..."] + lines[-10:] if errors else lines[-10:]
            print(f"----- {pod_name} output (first error lines, last lines) -----\n"
                  + "\n".join(ln[:400] for ln in shown) + "\n-----", flush=True)

    if failures:
        for f in failures:
            print(f"[jax-launch] FAIL: {f}", file=sys.stderr, flush=True)
        print(f"[jax-launch] FAILED: {subject}: {len(failures)} of {processes} process(es) wrong "
              f"(logs in {logdir})", file=sys.stderr, flush=True)
        return 1
    log(f"PASSED: {subject}: {processes} processes initialised JAX from {what} and "
        f"agreed on a psum over {expected_global} devices")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
