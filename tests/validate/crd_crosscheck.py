#!/usr/bin/env python3
"""Independent check of `jax-runtimes validate --crd`: validates objects against a CRD's
openAPIV3Schema with the Python `jsonschema` package (Draft 4), using its own conversion of the
structural schema into JSON Schema (written here from the Kubernetes rules, not shared with the
Rust adapter):

  * nullable: true            -> null is allowed;
  * objects (type object or properties) without x-kubernetes-preserve-unknown-fields or
    additionalProperties       -> additionalProperties: false (the API server prunes the rest),
    except the object's own `metadata` (ObjectMeta, checked by the server itself);
  * x-kubernetes-int-or-string -> anyOf [integer, string];
  * x-kubernetes-embedded-resource -> apiVersion and kind allowed and required;
  * x-kubernetes-list-type map/set -> no two items with the same key (or the same item).

Usage: crd_crosscheck.py INPUT.json CRD.yaml...
INPUT.json is a list of {"name", "object"}. Prints a JSON object {name: [field paths]}, one path
per error, dotted with [i] (`spec.a[0].b`); for unknown fields the path of the field itself, for
missing required fields the path of the missing field.
"""

import json
import re
import sys

import jsonschema
import yaml


def convert(schema):
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in ("properties", "patternProperties"):
        if key in out:
            out[key] = {k: convert(v) for k, v in out[key].items()}
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = convert(out[key])
    for key in ("allOf", "anyOf", "oneOf"):
        if key in out:
            out[key] = [convert(s) for s in out[key]]
    if out.get("x-kubernetes-embedded-resource") is True:
        props = dict(out.get("properties", {}))
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props.setdefault("metadata", {"type": "object"})
        out["properties"] = props
        out["required"] = sorted(set(out.get("required", [])) | {"apiVersion", "kind"})
    int_or_string = out.get("x-kubernetes-int-or-string") is True
    if int_or_string:
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    is_object = "properties" in out or out.get("type") == "object"
    keeps_unknown = out.get("x-kubernetes-preserve-unknown-fields") is True
    if is_object and not keeps_unknown and "additionalProperties" not in out and not int_or_string:
        out["additionalProperties"] = False
    if out.get("nullable") is True:
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = out["enum"] + [None]
    return out


def list_type(validator, value, instance, schema):
    if not validator.is_type(instance, "array"):
        return
    seen = set()
    keys = schema.get("x-kubernetes-list-map-keys") if value == "map" else None
    if value not in ("map", "set"):
        return
    for item in instance:
        if keys is not None:
            k = json.dumps([item.get(key) if isinstance(item, dict) else None for key in keys], sort_keys=True)
        else:
            k = json.dumps(item, sort_keys=True)
        if k in seen:
            yield jsonschema.ValidationError(f"duplicate key {k}")
            return
        seen.add(k)


Validator = jsonschema.validators.extend(jsonschema.Draft4Validator, {"x-kubernetes-list-type": list_type})


def dotted(path):
    s = ""
    for p in path:
        if isinstance(p, int):
            s += f"[{p}]"
        else:
            s += ("." if s else "") + p
    return s


def paths(validator, obj):
    out = set()
    for e in validator.iter_errors(obj):
        base = list(e.absolute_path)
        if e.validator == "additionalProperties" and e.validator_value is False:
            allowed = set(e.schema.get("properties", {}))
            for extra in e.instance:
                if extra not in allowed:
                    out.add(dotted(base + [extra]))
        elif e.validator == "required":
            m = re.match(r"^'(.+)' is a required property$", e.message)
            out.add(dotted(base + [m.group(1)]) if m else dotted(base))
        else:
            out.add(dotted(base))
    return sorted(out)


def main():
    inputs = json.load(open(sys.argv[1]))
    validators = {}
    for f in sys.argv[2:]:
        for crd in yaml.safe_load_all(open(f)):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for v in crd["spec"]["versions"]:
                schema = convert(v["schema"]["openAPIV3Schema"])
                meta = schema.get("properties", {}).get("metadata")
                if isinstance(meta, dict) and "properties" not in meta:
                    meta.pop("additionalProperties", None)
                validators[(f"{group}/{v['name']}", kind)] = Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    result = {}
    for case in inputs:
        obj = case["object"]
        v = validators.get((obj.get("apiVersion"), obj.get("kind")))
        if v is None:
            print(f"no CRD for {obj.get('apiVersion')} {obj.get('kind')} ({case['name']})", file=sys.stderr)
            sys.exit(2)
        result[case["name"]] = paths(v, obj)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
