#!/usr/bin/env python3
"""Validates the document a live server serves (GET /openapi.json) with openapi-spec-validator, then calls every
documented GET path of the USSD gateway and the chain gateway (and the system routes) and checks each response:
status and content type documented, body valid against its schema with openapi-schema-validator, and object
schemas closed (a field the document does not declare is an error). Prints one line per call; exits 1 on any
failure. Usage: python3 test/clients/openapi-sweep.py http://127.0.0.1:3000
"""
import copy
import json
import re
import sys
import urllib.error
import urllib.request

from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

BASE = sys.argv[1].rstrip("/")
PATH_VALUES = {
    "id": "did:ixo:entity:oracle7d1e3c9a2b",
    "sessionId": "python-session-1",
    "minter": "ixo1minter",
    "contract_address": "ixo1contract",
}


def fetch(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as res:
            return res.status, res.headers.get("content-type", ""), res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("content-type", ""), err.read()


def resolve(doc, schema):
    """Inlines local $refs (the document's components)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            node = doc
            for part in schema["$ref"].lstrip("#/").split("/"):
                node = node[part]
            return resolve(doc, node)
        return {k: resolve(doc, v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [resolve(doc, v) for v in schema]
    return schema


def closed(schema):
    """The schema with every object schema that lists its properties closed to others."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node and not any(
                k in node for k in ("allOf", "anyOf", "oneOf")
            ):
                node["additionalProperties"] = False
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    return schema


def main():
    status, _, raw = fetch("GET", "/openapi.json")
    doc = json.loads(raw)
    failures = []
    try:
        validate(doc)
    except Exception as err:  # noqa: BLE001 - report any validator error
        failures.append(f"document: {err}")
    calls = 0
    for path, operations in sorted(doc["paths"].items()):
        if not re.match(r"^/(api/ussd|ixo)(/|$)|^/(health)?$", path):
            continue
        for method, op in operations.items():
            concrete = re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES.get(m.group(1), "x"), path)
            body = None
            if op.get("operationId") == "ussd.session":
                body = {"sessionId": "py-1", "serviceCode": "*384*123#", "phoneNumber": "+254700000098", "text": ""}
            elif method != "get":
                continue
            status, ctype, raw = fetch(method.upper(), concrete, body)
            calls += 1
            ctype = ctype.split(";")[0].strip()
            errors = []
            response = op["responses"].get(str(status)) or op["responses"].get("default")
            if response is None:
                errors.append(f"status {status} not documented")
            else:
                content = response.get("content", {})
                if ctype not in content:
                    errors.append(f"content type {ctype or 'none'} not documented ({', '.join(content) or 'none'})")
                else:
                    schema = content[ctype].get("schema")
                    value = json.loads(raw) if ctype == "application/json" else raw.decode()
                    if schema is not None:
                        validator = OAS30Validator(closed(resolve(doc, schema)))
                        errors += [f"{'/'.join(map(str, e.path)) or '(body)'}: {e.message}" for e in validator.iter_errors(value)][:3]
            line = "FAIL" if errors else "ok"
            print(f"{line:4} {method.upper():6} {path:52} {status} {ctype}")
            if errors:
                failures.append(f"{method.upper()} {path} -> {status}: {'; '.join(errors)}")
    print(f"python sweep: document {'invalid' if failures and failures[0].startswith('document') else 'valid'}, {calls} calls, {len(failures)} failed")
    for f in failures:
        print(f"  {f}")
    return 1 if failures or calls == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
