#!/usr/bin/env python3
"""Validates the custom resources of rendered manifests against their CRDs' openAPIV3Schema, as
the API server does with strict field validation: unknown fields are errors (a structural schema
prunes them, which would silently drop a misspelt setting), unless the schema keeps unknown fields.

usage: validate-crd-objects.py CRD_DIR MANIFEST... ; prints each object checked, exits 1 on any error.
Objects of kinds no CRD in CRD_DIR defines are skipped (kubernetes-validate checks those)."""
import copy
import sys

import jsonschema
import yaml


def strict(schema):
    """The schema with additionalProperties false wherever it names properties and neither allows
    unknown fields (x-kubernetes-preserve-unknown-fields) nor says otherwise."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if not isinstance(node, dict):
            return
        if "properties" in node and "additionalProperties" not in node \
                and not node.get("x-kubernetes-preserve-unknown-fields"):
            node["additionalProperties"] = False
        for key in ("properties", "patternProperties"):
            for child in node.get(key, {}).values():
                walk(child)
        for key in ("items", "additionalProperties", "not"):
            if isinstance(node.get(key), dict):
                walk(node[key])
        for key in ("allOf", "anyOf", "oneOf"):
            for child in node.get(key, []):
                walk(child)

    walk(schema)
    return schema


def main():
    crd_dir, manifests = sys.argv[1], sys.argv[2:]
    import glob
    import os
    schemas = {}
    for path in sorted(glob.glob(os.path.join(crd_dir, "*.yaml"))):
        with open(path) as f:
            crd = yaml.safe_load(f)
        if not crd or crd.get("kind") != "CustomResourceDefinition":
            continue
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if version.get("served"):
                schemas[(f"{group}/{version['name']}", kind)] = strict(version["schema"]["openAPIV3Schema"])
    failures = 0
    checked = 0
    for path in manifests:
        with open(path) as f:
            for obj in yaml.safe_load_all(f):
                if not obj:
                    continue
                key = (obj.get("apiVersion"), obj.get("kind"))
                if key not in schemas:
                    continue
                checked += 1
                name = f"{path}: {key[1]} {obj.get('metadata', {}).get('name')}"
                # The API server validates metadata itself; the CRD schema only says it is an object.
                body = {k: v for k, v in obj.items() if k != "metadata"}
                schema = dict(schemas[key])
                schema["properties"] = dict(schema.get("properties", {}))
                schema["properties"].pop("metadata", None)
                schema["required"] = [r for r in schema.get("required", []) if r != "metadata"]
                errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(body), key=lambda e: list(e.path))
                if errors:
                    failures += 1
                    for error in errors:
                        where = "/".join(str(p) for p in error.path) or "(root)"
                        print(f"{name}: {where}: {error.message}")
                else:
                    print(f"{name}: valid against its CRD")
    if checked == 0:
        print("validate-crd-objects: no custom resource found", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
