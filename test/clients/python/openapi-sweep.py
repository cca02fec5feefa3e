#!/usr/bin/python3
"""A sweep of the gateway's OpenAPI document against the live server, with Debian's Python packages only.

    /usr/bin/python3 test/clients/python/openapi-sweep.py <openapi.json> <plan.json>

1. Validates the document against the OpenAPI 3.0 JSON Schema (Debian: openapi-specification) and checks
   what that schema cannot: unique operationIds, every path template parameter declared.
2. Makes every call of the plan written by test/clients/clients.test.ts, each built from the document
   (path, query and header parameters placed where the operation declares them), and checks that the status
   is documented for the operation, the content type is documented for that status, and the body validates
   against the documented schema (python3-jsonschema), with every object schema closed: a field the
   document does not name is an error.
3. Checks that every operation of the plan's covered paths was called.

Prints one JSON summary on stdout; exits 1 when anything failed.
"""

import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

from jsonschema import Draft4Validator, FormatChecker

OAS30_SCHEMA = "/usr/share/openapi-specification/schemas/v3.0/schema.json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def document_errors(document):
    """Errors of the document as an OpenAPI 3.0 document."""
    with open(OAS30_SCHEMA, encoding="utf-8") as f:
        oas = json.load(f)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in Draft4Validator(oas).iter_errors(document)
    ]
    seen = {}
    for path, item in document.get("paths", {}).items():
        for method, op in operations_of(item):
            op_id = op.get("operationId")
            if op_id is None:
                errors.append(f"{method.upper()} {path}: no operationId")
            elif op_id in seen:
                errors.append(f"operationId {op_id} of {method.upper()} {path} is also {seen[op_id]}")
            else:
                seen[op_id] = f"{method.upper()} {path}"
            declared = {p["name"] for p in parameters_of(item, op) if p.get("in") == "path"}
            for name in re.findall(r"\{([^}]+)\}", path):
                if name not in declared:
                    errors.append(f"{method.upper()} {path}: path parameter {name} is not declared")
    return errors


def operations_of(item):
    return [(m, op) for m, op in item.items() if m in METHODS]


def parameters_of(item, op):
    by_key = {(p["in"], p["name"]): p for p in item.get("parameters", [])}
    by_key.update({(p["in"], p["name"]): p for p in op.get("parameters", [])})
    return list(by_key.values())


class Closer:
    """Turns an OpenAPI 3.0 schema object into JSON Schema draft 4, closing every object schema."""

    def __init__(self):
        self.closed_ids = set()

    @property
    def closed(self):
        """How many object schemas of the document were closed here."""
        return len(self.closed_ids)

    def convert(self, schema):
        if not isinstance(schema, dict):
            return schema
        out = dict(schema)
        if out.pop("nullable", False):
            if "type" in out:
                out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        if "properties" in out:
            out["properties"] = {k: self.convert(v) for k, v in out["properties"].items()}
        if out.get("type") in ("object", ["object", "null"]) and "additionalProperties" not in out:
            out["additionalProperties"] = False
            self.closed_ids.add(id(schema))
        elif isinstance(out.get("additionalProperties"), dict):
            out["additionalProperties"] = self.convert(out["additionalProperties"])
        if "items" in out:
            out["items"] = self.convert(out["items"])
        for key in ("allOf", "anyOf", "oneOf"):
            if key in out:
                out[key] = [self.convert(s) for s in out[key]]
        if "not" in out:
            out["not"] = self.convert(out["not"])
        return out


def schema_errors(closer, schema, value):
    validator = Draft4Validator(closer.convert(schema), format_checker=FormatChecker())
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
        for e in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    ]


def call(base_url, path, method, item, op, planned, closer):
    """Makes one planned call; returns its result with the errors found."""
    result = {
        "label": planned["label"],
        "operationId": planned["operationId"],
        "expectStatus": planned["expectStatus"],
        "errors": [],
    }
    errors = result["errors"]
    params = dict(planned.get("params", {}))
    url_path, query, headers = path, [], {}
    for p in parameters_of(item, op):
        if p["name"] not in params and p["name"].lower() not in params:
            if p.get("required"):
                errors.append(f"required parameter {p['name']} ({p['in']}) is not in the plan")
            continue
        value = params.pop(p["name"] if p["name"] in params else p["name"].lower())
        if p["in"] == "path":
            url_path = url_path.replace("{" + p["name"] + "}", urllib.parse.quote(value, safe=":@"))
        elif p["in"] == "query":
            query.append((p["name"], value))
        elif p["in"] == "header":
            headers[p["name"]] = value
        errors.extend(f"parameter {p['name']}: {e}" for e in schema_errors(closer, p.get("schema", {}), value))
    if params:
        errors.append(f"the plan passes parameters the operation does not declare: {sorted(params)}")
    data = None
    if "body" in planned:
        content = op.get("requestBody", {}).get("content", {})
        if "application/json" not in content:
            errors.append("the operation documents no JSON request body")
        else:
            errors.extend(
                f"request body: {e}"
                for e in schema_errors(closer, content["application/json"].get("schema", {}), planned["body"])
            )
        data = json.dumps(planned["body"]).encode()
        headers["content-type"] = "application/json"
    if errors:
        return result

    url = base_url.rstrip("/") + url_path + ("?" + urllib.parse.urlencode(query) if query else "")
    result["url"] = url
    request = urllib.request.Request(url, data=data, method=method.upper(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, content_type, raw = response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as response:
        status, content_type, raw = response.code, response.headers.get("content-type", ""), response.read()
    result["status"], result["contentType"] = status, content_type
    if status != planned["expectStatus"]:
        errors.append(f"status {status}, expected {planned['expectStatus']}")

    responses = op.get("responses", {})
    documented = responses.get(str(status), responses.get("default"))
    if documented is None:
        errors.append(f"status {status} is not documented (documented: {sorted(responses)})")
        return result
    content = documented.get("content", {})
    if not content:
        if raw:
            errors.append(f"status {status} documents no body, and the response has one")
        return result
    media = content_type.split(";")[0].strip().lower()
    if media not in content:
        errors.append(f"content type '{content_type}' is not documented for {status} (documented: {sorted(content)})")
        return result
    text = raw.decode("utf-8")
    if media == "application/json" or media.endswith("+json"):
        try:
            body = json.loads(text)
        except ValueError:
            errors.append(f"the body is not JSON: {text[:200]}")
            return result
    else:
        body = result["text"] = text
    errors.extend(f"response: {e}" for e in schema_errors(closer, content[media].get("schema", {}), body))
    return result


def covered(cover, path):
    return any(path.startswith(e[:-1]) if e.endswith("*") else path == e for e in cover)


def main(document_file, plan_file):
    with open(document_file, encoding="utf-8") as f:
        document = json.load(f)
    with open(plan_file, encoding="utf-8") as f:
        plan = json.load(f)
    closer = Closer()
    doc_errors = document_errors(document)
    by_id = {
        op["operationId"]: (path, method, item, op)
        for path, item in document.get("paths", {}).items()
        for method, op in operations_of(item)
        if "operationId" in op
    }
    base_url = document["servers"][0]["url"]
    results = []
    for planned in plan["calls"]:
        found = by_id.get(planned["operationId"])
        if found is None:
            results.append({**planned, "errors": [f"the document has no operation {planned['operationId']}"]})
            continue
        path, method, item, op = found
        results.append(call(base_url, path, method, item, op, planned, closer))
    operations = sorted(i for i, (path, *_) in by_id.items() if covered(plan["cover"], path))
    called = {r["operationId"] for r in results}
    uncovered = [i for i in operations if i not in called]
    failed = sum(1 for r in results if r["errors"])
    summary = {
        "client": f"python {sys.version.split()[0]} jsonschema {jsonschema_version()}",
        "documentErrors": doc_errors,
        "closed": closer.closed,
        "operations": operations,
        "results": results,
        "uncovered": uncovered,
        "passed": len(results) - failed,
        "failed": failed + len(uncovered) + len(doc_errors),
    }
    print(json.dumps(summary))
    return 1 if summary["failed"] else 0


def jsonschema_version():
    from importlib.metadata import version

    return version("jsonschema")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} <openapi.json> <plan.json>")
    sys.exit(main(sys.argv[1], sys.argv[2]))
