"""Server-side dry runs of many objects, one kube-apiserver request each, on one connection.

    python3 dry_run.py KUBECONFIG FILE...

What `kubectl create --dry-run=server --validate=strict -f FILE` asks of the API server (a POST to
the object's collection with `dryRun=All&fieldValidation=Strict`; the collection from the API
server's discovery, the namespace `default` when the object has none), without kubectl's own cost
of about 25 ms of CPU per object: tests/controlplane.rs sends thousands of generated objects.
Prints one JSON line per file, in order: {"file": F, "refused": null or the server's message}.
Only the standard library: it runs wherever tests/run starts the control plane.
"""

import http.client
import json
import ssl
import subprocess
import sys
import urllib.parse


def config(kubeconfig):
    raw = subprocess.run(
        ["kubectl", "--kubeconfig", kubeconfig, "config", "view", "--raw", "--minify", "-o", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    c = json.loads(raw)
    cluster = c["clusters"][0]["cluster"]
    user = c["users"][0]["user"]
    return cluster["server"], cluster.get("certificate-authority"), user["token"]


def main():
    kubeconfig, files = sys.argv[1], sys.argv[2:]
    server, ca, token = config(kubeconfig)
    url = urllib.parse.urlparse(server)
    context = ssl.create_default_context(cafile=ca)
    conn = http.client.HTTPSConnection(url.hostname, url.port, context=context)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"}

    def request(method, path, body=None):
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")

    resources = {}

    def collection(api_version, kind):
        if api_version not in resources:
            base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
            status, body = request("GET", base)
            resources[api_version] = (base, {r["kind"]: r for r in body.get("resources", []) if "/" not in r["name"]})
        base, kinds = resources[api_version]
        return base, kinds.get(kind)

    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        try:
            obj = json.loads(data)
            if not isinstance(obj, dict):
                raise ValueError("not a mapping")
            base, r = collection(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        except (ValueError, AttributeError) as e:
            print(json.dumps({"file": f, "refused": f"not an object: {e}"}), flush=True)
            continue
        if r is None:
            print(json.dumps({"file": f, "refused": f"no resource for {obj.get('apiVersion')} {obj.get('kind')}"}))
            continue
        path = base
        if r["namespaced"]:
            meta = obj.get("metadata")
            ns = (meta.get("namespace") if isinstance(meta, dict) else None) or "default"
            path += f"/namespaces/{urllib.parse.quote(str(ns), safe='')}"
        path += f"/{r['name']}?dryRun=All&fieldValidation=Strict"
        status, body = request("POST", path, data)
        refused = None if 200 <= status < 300 else body.get("message", f"HTTP {status}")
        print(json.dumps({"file": f, "refused": refused}))


main()
