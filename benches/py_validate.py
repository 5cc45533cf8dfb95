#!/usr/bin/env python3
"""The baseline for `jax-runtimes validate --crd`: Python jsonschema validating the same runtime
files against the same CRD's openAPIV3Schema (the version served for each object's apiVersion).

Given every advantage Python has here: PyYAML's C loader (libyaml) when available, and one
validator compiled per CRD version and reused for every object. It checks the schema only
(no CEL rules, no Kubernetes extensions), so it does less than `jax-runtimes validate --crd`.

Usage: benches/py_validate.py CRD.yaml RUNTIMES.yaml
Exit 0 when every object is valid, 1 otherwise; prints the counts on stderr.
"""
import sys

import jsonschema
import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def main(crd_path, runtimes_path):
    with open(crd_path) as f:
        crd = yaml.load(f, Loader=Loader)
    group = crd["spec"]["group"]
    kind = crd["spec"]["names"]["kind"]
    validators = {}
    for v in crd["spec"]["versions"]:
        schema = v["schema"]["openAPIV3Schema"]
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft4Validator)
        validators[f"{group}/{v['name']}"] = cls(schema)
    checked = errors = 0
    with open(runtimes_path) as f:
        for doc in yaml.load_all(f, Loader=Loader):
            if not isinstance(doc, dict) or doc.get("kind") != kind:
                continue
            validator = validators.get(doc.get("apiVersion"))
            if validator is None:
                continue
            checked += 1
            for e in validator.iter_errors(doc):
                errors += 1
                print(f"{doc['metadata']['name']}: {'.'.join(map(str, e.absolute_path))}: {e.message}", file=sys.stderr)
    print(f"py_validate: {checked} object(s) checked, {errors} error(s)", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
