#!/usr/bin/env python3
"""Check that the Kubeflow Python SDK reads generated runtimes the way their catalog entries say.

The runtimes (YAML, one or more documents) are served by a minimal in-process stand-in for the
Kubernetes API server: it answers only the GET requests the SDK makes for ClusterTrainingRuntimes /
TrainingRuntimes (list and get) and the Trainer version ConfigMap, with the objects as JSON, the
way kube-apiserver would. Everything else is the SDK's own code, unpatched: `TrainerClient` with a
`KubernetesBackendConfig` pointing at that server, then `list_runtimes()` and `get_runtime(name)`.

Expectations come from a JSON file (--expect) keyed by runtime name, written from the catalog, not
from the rendered runtimes:

    {"<runtime name>": {"framework": "jax", "num_nodes": 4, "device": "tpu", "devices_per_node": 4}}

For every runtime in the input and every expectation (both directions must match up):
  * list_runtimes() lists it, and get_runtime(name) returns it;
  * trainer.framework, trainer.num_nodes and trainer.device equal the expectation;
  * the device count per node (the SDK reports count x numNodes) equals devices_per_node.
Exit 0 when all hold, 1 with one line per problem otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

GROUP_VERSION = "trainer.kubeflow.org/v1alpha1"
NAMESPACE = "default"
TRAINER_VERSION = "v2.3.0"


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# A read-only stand-in for the API server, serving the given runtimes.


class FakeApiServer:
    def __init__(self, runtimes: list[dict]):
        self.cluster = {}
        self.namespaced = {}
        for r in runtimes:
            name = r["metadata"]["name"]
            if r["kind"] == "ClusterTrainingRuntime":
                self.cluster[name] = r
            else:
                ns = r["metadata"].get("namespace") or NAMESPACE
                self.namespaced.setdefault(ns, {})[name] = r
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):  # noqa: N802 (http.server API)
                path = self.path.split("?", 1)[0]
                server.requests.append(path)
                code, body = server.route(path)
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def not_found(what: str):
        return 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                     "message": f"{what} not found", "reason": "NotFound", "code": 404}

    @staticmethod
    def listing(kind: str, items: dict):
        return 200, {"apiVersion": GROUP_VERSION, "kind": f"{kind}List",
                     "metadata": {"resourceVersion": "1"},
                     "items": [items[k] for k in sorted(items)]}

    def route(self, path: str):
        base = f"/apis/{GROUP_VERSION}"
        if m := re.fullmatch(base + r"/clustertrainingruntimes(?:/([^/]+))?", path):
            if m.group(1) is None:
                return self.listing("ClusterTrainingRuntime", self.cluster)
            r = self.cluster.get(m.group(1))
            return (200, r) if r else self.not_found(f'clustertrainingruntimes "{m.group(1)}"')
        if m := re.fullmatch(base + r"/namespaces/([^/]+)/trainingruntimes(?:/([^/]+))?", path):
            items = self.namespaced.get(m.group(1), {})
            if m.group(2) is None:
                return self.listing("TrainingRuntime", items)
            r = items.get(m.group(2))
            return (200, r) if r else self.not_found(f'trainingruntimes "{m.group(2)}"')
        if path == "/api/v1/namespaces/kubeflow-system/configmaps/kubeflow-trainer-public":
            return 200, {"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "kubeflow-trainer-public", "namespace": "kubeflow-system"},
                         "data": {"kubeflow_trainer_version": TRAINER_VERSION}}
        return self.not_found(path)


# ---------------------------------------------------------------------------------------------


def load_runtimes(paths: list[str]) -> list[dict]:
    out = []
    for p in paths:
        text = sys.stdin.read() if p == "-" else Path(p).read_text()
        for i, doc in enumerate(yaml.safe_load_all(text)):
            if doc is None:
                continue
            if not isinstance(doc, dict) or doc.get("kind") not in ("ClusterTrainingRuntime", "TrainingRuntime"):
                raise InputError(f"{p}: document {i}: expected a ClusterTrainingRuntime or TrainingRuntime, "
                                 f"got {doc.get('kind') if isinstance(doc, dict) else type(doc).__name__}")
            if not (doc.get("metadata") or {}).get("name"):
                raise InputError(f"{p}: document {i}: metadata.name is missing")
            out.append(doc)
    names = [d["metadata"]["name"] for d in out]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise InputError(f"runtime names appear more than once: {', '.join(dups)}")
    return out


def load_expectations(path: str) -> dict[str, dict]:
    exp = json.loads(Path(path).read_text())
    if not isinstance(exp, dict):
        raise InputError(f"{path}: expected a JSON object keyed by runtime name")
    for name, e in exp.items():
        missing = {"framework", "num_nodes", "device", "devices_per_node"} - set(e)
        if missing:
            raise InputError(f"{path}: {name}: missing {', '.join(sorted(missing))}")
    return exp


def per_node(device_count: str, num_nodes: int) -> str:
    """The SDK multiplies the per-node count by numNodes when it is a whole number; undo that."""
    if device_count.isdigit() and num_nodes:
        total = int(device_count)
        return str(total // num_nodes) if total % num_nodes == 0 else f"{total}/{num_nodes}"
    return device_count


def check(runtimes: list[dict], expected: dict[str, dict]) -> list[str]:
    # Imported here so `--help` works without the SDK.
    from kubernetes import client as k8s
    from kubeflow.common.types import KubernetesBackendConfig
    from kubeflow.trainer import TrainerClient

    problems: list[str] = []
    names = [r["metadata"]["name"] for r in runtimes]
    for n in names:
        if n not in expected:
            problems.append(f"{n}: rendered, but has no expectation; add it to the expectations table")
    for n in expected:
        if n not in names:
            problems.append(f"{n}: expected, but not in the rendered runtimes")

    with FakeApiServer(runtimes) as api:
        cfg = k8s.Configuration()
        cfg.host = api.url
        tc = TrainerClient(backend_config=KubernetesBackendConfig(namespace=NAMESPACE, client_configuration=cfg))

        listed = {}
        try:
            for r in tc.list_runtimes():
                listed[r.name] = r
        except Exception as e:  # noqa: BLE001 — a runtime that breaks listing is a finding
            problems.append(f"list_runtimes() failed, so no runtime is listed: {type(e).__name__}: "
                            f"{e.__cause__ or e}")
            listed = None

        if not any("clustertrainingruntimes" in p or "trainingruntimes" in p for p in api.requests):
            problems.append("the SDK never asked the API server for runtimes; the check did not run")

        rows = []
        for n in names:
            exp = expected.get(n)
            got = None
            try:
                got = tc.get_runtime(n)
            except Exception as e:  # noqa: BLE001
                cause = e.__cause__ or e
                problems.append(f"{n}: get_runtime() failed: {type(cause).__name__}: {cause}")
            if listed is not None and n not in listed:
                problems.append(f"{n}: not listed by list_runtimes() (the SDK hides it; does it carry the "
                                f"trainer.kubeflow.org/framework label?)")
            if got is None:
                rows.append((n, "-", "-", "-", "-", "-"))
                continue
            t = got.trainer
            seen = {
                "framework": t.framework,
                "num_nodes": t.num_nodes,
                "device": t.device,
                "devices_per_node": per_node(str(t.device_count), t.num_nodes),
            }
            rows.append((n, "yes" if listed and n in listed else "no", t.framework, str(t.num_nodes),
                         t.device, f"{seen['devices_per_node']} (SDK total {t.device_count})"))
            if exp is None:
                continue
            for k in ("framework", "num_nodes", "device", "devices_per_node"):
                want = str(exp[k]) if k == "devices_per_node" else exp[k]
                if seen[k] != want:
                    hint = ""
                    if k == "devices_per_node" and re.fullmatch(r"\d+\.0", str(t.device_count)):
                        hint = (" (the quantity reached the SDK as a number, which it reads as a float and "
                                "then cannot multiply by numNodes; write resource quantities as strings)")
                    problems.append(f"{n}: SDK reads {k} = {seen[k]!r}, catalog expects {want!r}{hint}")

    header = ("runtime", "listed", "framework", "nodes", "device", "devices/node")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
    return problems


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runtimes", nargs="+", help="runtime YAML file(s), or - for stdin")
    ap.add_argument("--expect", required=True, help="JSON expectations keyed by runtime name")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="[sdk] %(levelname)s %(name)s: %(message)s")
    try:
        runtimes = load_runtimes(a.runtimes)
        expected = load_expectations(a.expect)
    except (InputError, OSError, yaml.YAMLError, json.JSONDecodeError) as e:
        print(f"[sdk-check] ERROR: {e}", file=sys.stderr)
        return 2
    import importlib.metadata as md
    print(f"[sdk-check] kubeflow SDK {md.version('kubeflow')}: {len(runtimes)} runtime(s), "
          f"{len(expected)} expectation(s)")
    problems = check(runtimes, expected)
    if problems:
        for p in problems:
            print(f"[sdk-check] FAIL: {p}", file=sys.stderr)
        print(f"[sdk-check] FAILED: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"[sdk-check] PASSED: the SDK lists all {len(runtimes)} runtime(s) as the catalog describes them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
