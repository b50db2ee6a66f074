"""YAML that remembers where each value was written, validated against a JSON Schema.

Rule authors' YAML (manifests, scenarios, saved games) is data from strangers: it is
read with the safe loader, anchors and aliases are refused (no "billion laughs"), size
and depth are capped, and every schema error names file:line:col.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from kbdsl.errors import Diagnostic, Pos, RuleError, read_source
from kbdsl.resources import data_dir
from kbdsl.suggest import did_you_mean
from kbdsl.wording import counted

MAX_YAML_BYTES = 2_000_000
MAX_DEPTH = 32
KEY = object()  # marks[path + (key, KEY)] is where the key itself is written


@dataclass
class Document:
    """A loaded YAML file: plain data plus the source position of every value."""

    path: str
    data: Any
    marks: dict[tuple, Pos]

    def pos(self, *where: Any) -> Pos:
        """Position of the value at `where` (falls back to the nearest enclosing value)."""
        key = tuple(where)
        while key not in self.marks and key:
            key = key[:-1]
        return self.marks.get(key, Pos(self.path, 1, 1))

    def error(self, message: str, *where: Any, code: str = "E200") -> RuleError:
        return RuleError([Diagnostic(self.pos(*where), message, code)])


def _construct(node: yaml.Node, path: str, here: tuple, marks: dict, depth: int) -> Any:
    pos = Pos(path, node.start_mark.line + 1, node.start_mark.column + 1)
    if depth > MAX_DEPTH:
        raise RuleError([Diagnostic(pos, _TOO_DEEP, "E201")])
    marks[here] = pos
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, path, here, {}, depth + 1)
            if not isinstance(key, (str, int, bool)) or key is None:
                raise RuleError([Diagnostic(pos, "YAML keys must be plain words", "E201")])
            key = str(key) if not isinstance(key, str) else key
            if key in out:
                kpos = Pos(path, key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                raise RuleError([Diagnostic(kpos, f"duplicate key {key!r}", "E201")])
            marks[here + (key, KEY)] = Pos(path, key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            out[key] = _construct(value_node, path, here + (key,), marks, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(v, path, here + (i,), marks, depth + 1) for i, v in enumerate(node.value)]
    value = _scalar(node)
    if hasattr(value, "isoformat"):  # dates and times are not JSON: keep the text
        return node.value
    return value


_CONSTRUCTORS = yaml.constructor.SafeConstructor.yaml_constructors
_STATELESS = yaml.constructor.SafeConstructor()  # its scalar constructors read only the node


def _scalar(node: yaml.Node) -> Any:
    """A scalar resolved exactly as yaml.safe_load would, but with no cache that outlives the
    call (a loader's construct_object keeps every node it ever built)."""
    construct = _CONSTRUCTORS.get(node.tag, _CONSTRUCTORS[None])
    return construct(_STATELESS, node)


_TOO_DEEP = f"YAML nested deeper than {MAX_DEPTH} levels"
_OPEN_CLOSE = re.compile(r"[\[\]{}]")


def _check_brackets(text: str, path: str) -> None:
    """Refuse flow brackets nested too deeply before PyYAML sees them: its scanner takes time
    quadratic in the nesting depth. Brackets in quoted text count too, so this errs only on the
    side of refusing (more than MAX_DEPTH unclosed brackets in one document)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for m in _OPEN_CLOSE.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                i = m.start()
                line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
                raise RuleError([Diagnostic(Pos(path, line, col), _TOO_DEEP, "E201")])
        elif depth:
            depth -= 1


#: PyYAML's C (LibYAML) parser when it is installed: the same safe grammar, many times faster.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, path: str) -> Document:
    """Parse YAML text into a Document; malformed YAML becomes a positioned RuleError."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise RuleError([Diagnostic(Pos(path, 1, 1), f"file is larger than {MAX_YAML_BYTES} bytes", "E201")])
    _check_brackets(text, path)
    try:
        node = _compose(text, path, FAST_LOADER)
    except yaml.MarkedYAMLError:
        node = None  # LibYAML words its errors worse: let the pure-Python parser report this one
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        raise RuleError([Diagnostic(Pos(path, 1, 1), f"invalid YAML: {err}", "E201")]) from None
    else:
        return _document(node, path)
    try:
        node = _compose(text, path, yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        pos = Pos(path, mark.line + 1, mark.column + 1) if mark else Pos(path, 1, 1)
        raise RuleError([Diagnostic(pos, f"invalid YAML: {err.problem or err.context}", "E201")]) from None
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        raise RuleError([Diagnostic(Pos(path, 1, 1), f"invalid YAML: {err}", "E201")]) from None
    return _document(node, path)


def _compose(text: str, path: str, loader: type) -> yaml.Node | None:
    """The YAML node tree, refusing anchors and aliases (no "billion laughs") and nesting
    deeper than MAX_DEPTH, both found from the event stream before anything is composed."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise RuleError([Diagnostic(Pos(path, mark.line + 1, mark.column + 1), _TOO_DEEP, "E201")])
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if getattr(event, "anchor", None) is not None:
            mark = event.start_mark
            where = Pos(path, mark.line + 1, mark.column + 1)
            raise RuleError([Diagnostic(where, "YAML anchors and aliases are not supported", "E201")])
    return yaml.compose(text, Loader=loader)


def _document(node: yaml.Node | None, path: str) -> Document:
    marks: dict[tuple, Pos] = {}
    if node is None:
        return Document(path, None, {(): Pos(path, 1, 1)})
    try:
        data = _construct(node, path, (), marks, 0)
    except yaml.YAMLError as err:
        raise RuleError([Diagnostic(Pos(path, 1, 1), f"invalid YAML: {err}", "E201")]) from None
    return Document(path, data, marks)


def read_yaml(path: str | Path) -> Document:
    """Read and parse a YAML file (unreadable files are reported like any other finding)."""
    return parse_yaml(read_source(path), str(path))


@cache
def schema(name: str) -> dict:
    """A JSON Schema from schemas/ by file stem (`manifest`, `scenario`, `game`)."""
    return json.loads((data_dir("schemas") / f"{name}.schema.json").read_text(encoding="utf-8"))


def _is_whole(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def strict_validator(s: dict) -> jsonschema.protocols.Validator:
    """A validator for schema `s` in which "integer" means an integer: JSON Schema would let 2.0
    pass, but a count or a seed written 2.0 is a mistake (and would make another game)."""
    cls = jsonschema.validators.validator_for(s)
    strict = jsonschema.validators.extend(cls, type_checker=cls.TYPE_CHECKER.redefine("integer", _is_whole))
    return strict(s)


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    return strict_validator(schema(name))


def validate(doc: Document, schema_name: str) -> None:
    """Check a document against a schema; every violation becomes a positioned finding."""
    errors = sorted(_validator(schema_name).iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        title = schema(schema_name).get("title", schema_name)
        raise RuleError([Diagnostic(_where(doc, e), _message(e, schema_name, title), "E202") for e in errors[:20]])


def _where(doc: Document, err: jsonschema.ValidationError) -> Pos:
    """Point at an unexpected key itself, else at the offending value."""
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        extra = _extra_keys(err)
        if extra and path + (extra[0], KEY) in doc.marks:
            return doc.marks[path + (extra[0], KEY)]
    return doc.pos(*path)


#: How schema types are named for people.
TYPE_WORDS = {
    "object": "a mapping of keys to values",
    "array": "a list",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
}
DOCUMENTS = {"manifest": "the manifest", "scenario": "the scenario", "game": "the saved game"}


def _extra_keys(err: jsonschema.ValidationError) -> list[str]:
    allowed = set(err.schema.get("properties", {}))
    patterns = err.schema.get("patternProperties", {})
    return [k for k in err.instance if k not in allowed and not any(re.search(p, k) for p in patterns)]


def _found(value: Any) -> str:
    for name, kind in (("null", type(None)), ("boolean", bool), ("integer", int), ("number", float)):
        if isinstance(value, kind):
            return TYPE_WORDS[name] if name == "null" else f"{TYPE_WORDS[name]} ({json.dumps(value)})"
    if isinstance(value, str):
        return f"the text {value[:40]!r}" + ("..." if len(value) > 40 else "")
    return TYPE_WORDS["object" if isinstance(value, dict) else "array"]


def _message(err: jsonschema.ValidationError, schema_name: str = "", title: str = "") -> str:
    """One plain sentence naming the key, instead of jsonschema's wording. A document that is
    not a mapping at all is not quoted, since it may be any file at all (a path given by a
    stranger); quoted values are cut short for the same reason."""
    path = list(err.absolute_path)
    if not path and err.validator == "type":
        return f"the document is {_kind(err.instance)}, not a mapping of keys: it is not a {title or schema_name}"
    doc = DOCUMENTS.get(schema_name, "the document")
    key = "/".join(str(p) for p in path)
    if not path:
        subject = doc
    elif isinstance(path[-1], int):
        parent = "/".join(str(p) for p in path[:-1])
        subject = f"item {path[-1] + 1} of {parent!r}" if parent else f"item {path[-1] + 1}"
    else:
        subject = f"the key {key!r}"
    if err.validator in ("oneOf", "anyOf") and err.context:
        return _message(jsonschema.exceptions.best_match(err.context), schema_name, title)
    if err.validator == "additionalProperties":
        extra = _extra_keys(err)
        allowed = sorted(err.schema.get("properties", {}))
        where = f"in {key!r}" if path else f"in {doc}"
        hint = did_you_mean(extra[0], allowed) if extra else ""
        return f"unknown key {extra[0] if extra else '?'!r} {where}{hint}; known keys: {', '.join(allowed)}"
    if err.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        name = missing[0] if missing else err.message
        return f"{subject} needs the key {name!r}"
    if err.validator == "type":
        wanted = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        words = " or ".join(TYPE_WORDS.get(w, w) for w in wanted)
        return f"{subject} must be {words}, not {_found(err.instance)}"
    if err.validator == "enum":
        options = [str(v) for v in err.validator_value]
        hint = did_you_mean(str(err.instance), options)
        return f"{subject} must be one of {', '.join(options)}, not {_found(err.instance)}{hint}"
    if err.validator == "const":
        return f"{subject} must be {json.dumps(err.validator_value)}, not {_found(err.instance)}"
    if err.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than"}.get(
            err.validator, "less than"
        )
        return f"{subject} must be {word} {err.validator_value}, not {err.instance}"
    if err.validator in ("minItems", "maxItems"):
        word = "at least" if err.validator == "minItems" else "at most"
        return f"{subject} must list {word} {counted(err.validator_value, 'item')}, not {len(err.instance)}"
    if err.validator == "minLength" and err.validator_value == 1:
        return f"{subject} may not be empty"
    if err.validator in ("minLength", "maxLength"):
        word = "at least" if err.validator == "minLength" else "at most"
        return f"{subject} must be {word} {counted(err.validator_value, 'character')} long"
    if err.validator == "minProperties":
        return f"{subject} must not be empty"
    if err.validator in ("pattern", "not") and "description" in err.schema:
        return f"{subject} must be {err.schema['description']}, not {_found(err.instance)}"
    if err.validator == "pattern":
        return f"{subject} does not have the expected form ({_found(err.instance)}, expected {err.validator_value})"
    if err.validator == "not":
        return f"{subject} may not be {_found(err.instance)}"
    if err.validator == "uniqueItems":
        return f"{subject} lists an item twice"
    return f"{subject}: {err.message}"


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a truth value"
    return {str: "a text", list: "a list", int: "a number", float: "a number"}.get(type(value), "a value")
