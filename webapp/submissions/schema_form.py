"""The system description as an HTML form generated from its JSON Schema (LEADERBOARD-RULES §4).

The schema (``ioscore.system_description``, shared with the CLI) is the one owner of what a
description holds: this module walks it and lays out one form field per leaf property,
grouped by the schema's objects, with help text from its descriptions, enums as selects and
required properties marked. Arrays of objects (node groups, server groups, media, links) are
repeated fieldsets. Field names are ``sys-`` + the property's path (``sys-run.client_nodes``,
``sys-server_groups.1.media.0.type``), so the page works without JavaScript and the script
only adds and removes repeated groups in the browser.

Submitted values become the JSON tree again (empty values are left out), the schema validates
it, and every problem is put beside the field (or group) it names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from ioscore.system_description import schema, validate
from ioscore_site.whole_numbers import whole_number

PREFIX = "sys-"
MAX_ITEMS = 32  # repeated groups per array: bounds the form whatever is posted
MAX_OPTION_LINES = 50
MAX_COUNT = 2**31 - 1
YES, NO = "true", "false"
# jsonschema's message for a missing property; the property is reported on its parent.
_REQUIRED = re.compile(r"'([A-Za-z0-9_]{1,64})' is a required property")
LABELS = {  # words the key alone does not spell out
    "fs_component": "File-system component",
    "fs_family": "File-system family",
    "md_data_same_servers": "Metadata and data on the same servers",
    "rdma": "RDMA",
    "os_distribution": "OS distribution",
    "os_version": "OS version",
    "iops": "IOPS",
    "web_page": "Web page",
    "local_fs": "Local file system",
}


@dataclass
class Node:
    """One schema property as laid out on the page."""

    path: str  # dotted, with list positions: "client_node_groups.0.processor.model"
    key: str
    label: str
    help: str
    required: bool
    kind: str  # "group", "array", "quantity", "field", "fixed"
    spec: dict[str, Any]
    children: list[Node] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    bound: Any = None  # the form's BoundField, for "field" nodes

    @property
    def name(self) -> str:
        return PREFIX + self.path

    @property
    def dom_id(self) -> str:
        return "sf-" + self.path.replace(".", "-")

    @property
    def singular(self) -> str:
        """What one item of a repeated group is called ("Server groups" -> "Server group")."""
        return self.label[:-1] if self.label.endswith("s") else self.label

    @property
    def value_node(self) -> Node:
        return self.children[0]

    @property
    def unit_node(self) -> Node:
        return self.children[1]


def _resolve(spec: dict[str, Any]) -> dict[str, Any]:
    """Inline a local ``$ref``; the referring property's own keywords win."""
    ref = spec.get("$ref")
    if not ref:
        return spec
    target = schema()["$defs"][ref.rsplit("/", 1)[-1]]
    return {**target, **{k: v for k, v in spec.items() if k != "$ref"}}


def label_for(key: str) -> str:
    return LABELS.get(key) or key.replace("_", " ").capitalize()


def _help(spec: dict[str, Any]) -> str:
    parts = [spec.get("description", "")]
    if "pattern" in spec and "YYYY-MM" not in parts[0]:
        parts.append("format YYYY-MM" if "\\d{4}-" in spec["pattern"] else "")
    if spec.get("examples"):
        parts.append("e.g. " + ", ".join(map(str, spec["examples"])))
    return "; ".join(p for p in parts if p)


def layout(tree: Any) -> Node:
    """The form's nodes for the whole schema; arrays get as many items as ``tree`` holds
    (at least one, so there is always a group to fill in or copy)."""
    root = _resolve(schema())
    return _node(root, "", "", True, tree if isinstance(tree, dict) else {})


def _node(spec: dict[str, Any], path: str, key: str, required: bool, value: Any) -> Node:
    spec = _resolve(spec)
    node = Node(path, key, label_for(key), _help(spec), required, "field", spec)
    if "const" in spec and spec["const"] is not True:
        node.kind = "fixed"  # the schema version: not the user's to choose
    elif spec.get("type") == "object" and "properties" in spec:
        props: dict[str, Any] = spec["properties"]
        wanted = set(spec.get("required", []))
        node.kind = "quantity" if set(props) == {"value", "unit"} else "group"
        given = value if isinstance(value, dict) else {}
        node.children = [
            _node(sub, f"{path}.{name}" if path else name, name, name in wanted, given.get(name))
            for name, sub in props.items()
        ]
        if node.kind == "quantity":  # one help text, shown once, describing the value
            node.children[0].help, node.children[1].help = node.help, ""
    elif spec.get("type") == "array":
        items = value if isinstance(value, list) else []
        count = max(1, min(len(items), MAX_ITEMS))
        node.kind = "array"
        node.children = [
            _node(spec["items"], f"{path}.{i}", str(i), True, items[i] if i < len(items) else None)
            for i in range(count)
        ]
        for position, child in enumerate(node.children, 1):
            child.label = f"{node.singular} {position}"
    return node


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from walk(child)


def leaves(node: Node) -> Iterator[Node]:
    return (n for n in walk(node) if n.kind == "field")


# --- fields ----------------------------------------------------------------------------------


class OptionsField(forms.Field):
    """A free-form object (family-specific options) as ``key = value`` lines."""

    widget = forms.Textarea(attrs={"rows": 3})

    def to_python(self, value: Any) -> dict[str, str] | None:
        text = str(value).strip() if value is not None else ""
        if len(text) > 20_000:
            raise ValidationError("at most 20000 characters")
        if not text:
            return None
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > MAX_OPTION_LINES:
            raise ValidationError(f"at most {MAX_OPTION_LINES} lines")
        options: dict[str, str] = {}
        for number, line in enumerate(lines, 1):
            name, sep, setting = line.partition("=")
            if not sep or not name.strip():
                raise ValidationError(f"line {number}: write one 'key = value' per line")
            options[name.strip()] = setting.strip()
        return options


def _choices(values: list[Any]) -> list[tuple[str, str]]:
    return [("", "—"), *((str(v), str(v)) for v in values)]


def form_field(node: Node) -> forms.Field:
    """The Django field for one leaf; the schema decides what is required, not the field."""
    spec = node.spec
    attrs = {"aria-describedby": node.dom_id + "-help"} if node.help else {}
    kind = spec.get("type")
    common: dict[str, Any] = {"required": False, "label": node.label}
    if spec.get("const") is True:
        return forms.BooleanField(widget=forms.CheckboxInput(attrs=attrs), **common)
    if "enum" in spec:
        return forms.ChoiceField(
            choices=_choices(spec["enum"]), widget=forms.Select(attrs=attrs), **common
        )
    if kind == "boolean":
        return forms.TypedChoiceField(
            choices=[("", "—"), (YES, "yes"), (NO, "no")],
            coerce=lambda v: v == YES,
            empty_value=None,
            widget=forms.Select(attrs=attrs),
            **common,
        )
    if kind == "integer":  # counts: the service's columns hold 32-bit integers
        return forms.IntegerField(
            min_value=spec.get("minimum"),
            max_value=MAX_COUNT,
            widget=forms.NumberInput(attrs=attrs),
            **common,
        )
    if kind == "number":
        return forms.FloatField(
            min_value=spec.get("minimum"),
            widget=forms.NumberInput(attrs={**attrs, "step": "any"}),
            **common,
        )
    if kind == "object":
        return OptionsField(widget=forms.Textarea(attrs={**attrs, "rows": 3}), **common)
    if spec.get("examples"):
        attrs["list"] = node.dom_id + "-examples"
    return forms.CharField(
        max_length=spec.get("maxLength"),
        widget=forms.TextInput(attrs=attrs),
        strip=True,
        **common,
    )


def initial_value(node: Node, value: Any) -> Any:
    """A stored value as its field shows (and posts) it."""
    if node.spec.get("type") == "boolean" and isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, dict):
        return "\n".join(f"{k} = {v}" for k, v in value.items())
    return value


def values_from_tree(root: Node, tree: Any) -> dict[str, Any]:
    """Field name -> value for every leaf ``tree`` has a value for."""
    found: dict[str, Any] = {}
    for leaf in leaves(root):
        value = lookup(tree, leaf.path)
        if value is not None:
            found[leaf.name] = initial_value(leaf, value)
    return found


def lookup(tree: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(tree, dict):
            tree = tree.get(part)
        elif isinstance(tree, list) and (index := whole_number(part)) is not None:
            if index >= len(tree):
                return None
            tree = tree[index]
        else:
            return None
    return tree


# --- posted values -> tree -----------------------------------------------------------------


def posted_tree(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ``sys-`` fields of a POST as a nested tree of raw strings. Positions are only
    ordering keys: gaps left by groups removed in the browser close up here."""
    root: dict[str, Any] = {}
    for name in data:
        if not name.startswith(PREFIX):
            continue
        parts = name[len(PREFIX) :].split(".")
        if len(parts) > 12 or not all(parts):
            continue
        node: Any = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            if not isinstance(node.get(parts[-1]), dict):
                node[parts[-1]] = data.get(name)
    compacted: dict[str, Any] = _compact(root)
    return compacted


def _compact(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(k.isascii() and k.isdigit() for k in node):
        ordered = sorted(node.items(), key=lambda item: int(item[0]))[:MAX_ITEMS]
        return [_compact(v) for _, v in ordered]
    return {k: _compact(v) for k, v in node.items()}


def rename_posted(root: Node, raw: dict[str, Any]) -> dict[str, Any]:
    """The posted values under the field names of ``root`` (laid out from ``raw``)."""
    return {leaf.name: lookup(raw, leaf.path) for leaf in leaves(root)}


def tree_from_cleaned(node: Node, cleaned: Mapping[str, Any]) -> Any:
    """The JSON tree from cleaned field values; empty values and empty groups are left out."""
    if node.kind == "fixed":
        return node.spec["const"]
    if node.kind == "field":
        value = cleaned.get(node.name)
        if value is None or value == "" or (value is False and node.spec.get("const")):
            return None
        return value
    if node.kind == "array":
        items = [tree_from_cleaned(child, cleaned) for child in node.children]
        kept = [item for item in items if item is not None]
        return kept or None
    built = {child.key: tree_from_cleaned(child, cleaned) for child in node.children}
    kept_values = {k: v for k, v in built.items() if v is not None}
    if not node.path:
        return kept_values  # the root always exists
    fixed = {c.key for c in node.children if c.kind == "fixed"}
    return kept_values if set(kept_values) - fixed else None


# --- the form ------------------------------------------------------------------------------


class SystemDescriptionForm(forms.Form):
    """Bound to posted values (``data``) or showing a stored/pasted tree (``tree``)."""

    def __init__(self, data: Mapping[str, Any] | None = None, tree: Any = None) -> None:
        if data is not None:
            raw = posted_tree(data)
            self.root = layout(raw)
            super().__init__(data=rename_posted(self.root, raw))
        else:
            self.root = layout(tree)
            super().__init__(initial=values_from_tree(self.root, tree))
        self.nodes = {n.path: n for n in walk(self.root)}
        self.checked_tree: dict[str, Any] | None = None
        self.fields_ok = False
        for leaf in leaves(self.root):
            self.fields[leaf.name] = form_field(leaf)
        for leaf in leaves(self.root):
            leaf.bound = self[leaf.name]

    def tree(self) -> dict[str, Any]:
        """The description as the schema wants it (after ``is_valid``/``check``)."""
        if self.checked_tree is None:
            self.checked_tree = tree_from_cleaned(self.root, self.cleaned_data)
        return self.checked_tree

    def check(self) -> bool:
        """Field checks, then the schema; each problem beside its field. True when clean.
        ``fields_ok`` tells apart a form whose values could be read (a draft may be saved)."""
        self.fields_ok = self.is_valid()
        if not self.fields_ok:
            return False
        tree = self.tree()  # read before the schema's errors take fields out of cleaned_data
        for problem in validate(tree):
            self.place(problem.path, problem.message)
        return not self.errors and not self.group_errors()

    def place(self, path: str, message: str) -> None:
        missing = _REQUIRED.fullmatch(message)
        if missing:
            path = f"{path}.{missing.group(1)}" if path else missing.group(1)
            message = "required"
        elif "does not match" in message:
            message = "not in the expected format" + (
                f" ({self.nodes[path].help})" if path in self.nodes else ""
            )
        node = self.nodes.get(path)
        while node is None and "." in path:  # e.g. a position beyond the laid-out groups
            path = path.rsplit(".", 1)[0]
            node = self.nodes.get(path)
        if node is not None and missing and node.kind != "field":
            self.mark_required(node)  # a whole group is missing: say it at its fields
        elif node is not None and node.kind == "field":
            self.add_error(node.name, message)
        elif node is not None and node.path:
            node.errors.append(message)
        else:
            self.add_error(None, f"{path or 'description'}: {message}")

    def mark_required(self, node: Node) -> None:
        for child in node.children:
            if node.kind == "array" or child.required:
                if child.kind == "field":
                    self.add_error(child.name, "required")
                elif child.kind != "fixed":
                    self.mark_required(child)
        if not node.children:
            node.errors.append("required")

    def group_errors(self) -> list[tuple[str, str]]:
        return [(n.label, e) for n in self.nodes.values() for e in n.errors]
