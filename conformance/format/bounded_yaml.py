"""Reading YAML from outside the suite (spec files, waiver files): strict, bounded, refused in one line.

PyYAML's safe loader builds what a file says, but some files make the loader, or whatever walks its result,
work far beyond the file's size: an alias bomb (nine anchors of ten aliases each: 10^9 nodes in a few hundred
bytes), a recursive alias (`&a [*a]`), nesting deep enough to exhaust Python's stack. `parse` refuses those
before anything walks the document, and also text that is not UTF-8, control characters (a NUL byte), keys
that are not text and values PyYAML cannot build (a date `2024-13-45`, an integer of 5000 digits): each is one
`bounded.InputError` naming the line. The document it returns maps every key path to its line, visiting each
node once, and lists the keys given twice. `parse_file` reads a file to at most MAX_FILE_BYTES.
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import yaml

from ascendc_conformance.format.bounded import MAX_DEPTH, SHOWN_CHARS, InputError, clip, decode, read_file

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest YAML file read (spec and waiver files): a generated spec of 30,000 rules takes about 4 MiB."""

MAX_ALIAS_NODES = 100_000
"""How many nodes aliases may add to one document, counted as expanded: a block may be reused (the packaged
spec's aliases add a few hundred), not multiplied into a bomb."""

# libyaml's safe loader when PyYAML was built with it: the same documents, parsed several times faster.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TEXT_KEY_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:merge")   # `<<: *base` merges a mapping

KeyPath = tuple[str | int, ...]  # the keys and list indexes leading to a value: ("rules", 3, "min")


@dataclass(frozen=True)
class DuplicateKey:
    """A key given twice in one mapping (PyYAML keeps the last value silently)."""

    path: KeyPath
    line: int
    first_line: int


@dataclass(frozen=True)
class Document:
    """One parsed YAML document: the data, the line of every key path, the keys given twice."""

    data: Any
    lines: Mapping[KeyPath, int]
    duplicate_keys: tuple[DuplicateKey, ...]

    def line(self, path: KeyPath) -> int | None:
        """The line of `path`, or of its nearest ancestor that has one (a path through an alias has none)."""
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)


class _Loader(_SAFE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a value it cannot build with an InputError that names its line."""

    def __init__(self, text: str, where: str) -> None:
        super().__init__(text)
        self.where = where

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as error:
            kind = node.tag.rsplit(":", 1)[-1]
            reason = str(error).splitlines()[0].split(";")[0]
            raise InputError(self.where, f"cannot read {clip(str(node.value), SHOWN_CHARS)!r} as {kind} "
                                         f"({reason}) at line {_line(node)}", _line(node)) from None


def parse_file(path: str | os.PathLike[str], where: str) -> Document:
    """`parse` of the file at `path`, read to at most MAX_FILE_BYTES (InputError when larger; OSError when it
    cannot be read)."""
    return parse(read_file(path, MAX_FILE_BYTES), where)


def parse(raw: bytes, where: str) -> Document:
    """The one YAML document of `raw` (None for an empty one); InputError (naming `where` and the line) for
    text that is not UTF-8 or holds control characters, YAML syntax errors, aliases beyond MAX_ALIAS_NODES, a
    recursive alias, nesting deeper than MAX_DEPTH, keys that are not text and values that cannot be built."""
    text = decode(raw, where)
    _check_printable(text, where)
    loader = _Loader(text, where)
    try:
        with _no_cycle_collection():
            root = loader.get_single_node()
            if root is None:
                return Document(None, {}, ())
            _check_graph(root, where)
            lines, duplicates = _key_lines(root)
            return Document(loader.construct_document(root), lines, tuple(duplicates))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        line = mark.line + 1 if mark else None
        raise InputError(where, f"not valid YAML: {problem}" + (f" at line {line}" if line else ""), line) from None
    finally:
        loader.dispose()


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a document is built: what is built is kept, not garbage, and
    scanning a million new objects again and again makes a 30,000-rule spec file parse three times slower.
    (The nodes of a refused recursive alias are collected once the collector runs again.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _check_printable(text: str, where: str) -> None:
    """Refuse what YAML does not allow in a document (PyYAML's own definition), naming the line; PyYAML's
    C reader would report it by byte offset only."""
    found = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if found:
        code = ord(found.group())
        line = text.count("\n", 0, found.start()) + 1
        name = " (a NUL byte)" if code == 0 else ""
        raise InputError(where, f"holds the control character U+{code:04X}{name} at line {line}; YAML text holds "
                                "printable characters, tabs and line breaks only", line)


def _check_graph(root: yaml.Node, where: str) -> None:
    """Walk the composed node graph once, without recursion (a node reached again through an alias is counted,
    not walked again), and refuse aliases that expand beyond MAX_ALIAS_NODES, a recursive alias, nesting
    deeper than MAX_DEPTH (counted through aliases) and mapping keys that are not text."""
    size: dict[int, int] = {}     # node -> nodes it expands to
    depth: dict[int, int] = {}    # node -> levels of collections it expands to
    walking: set[int] = set()     # the collections on the path being walked
    added = 0                     # nodes aliases add
    # (node, what holds it: its key or its list, None; or the node and its children once they are walked)
    stack: list[tuple[yaml.Node, yaml.Node, list[Any] | None]] = [(root, root, None)]
    while stack:
        node, holder, children = stack.pop()
        key = id(node)
        if children is not None:
            walking.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            depth[key] = 1 + max((depth[id(child)] for child in children), default=0)
            if depth[key] > MAX_DEPTH:
                raise InputError(where, f"nested deeper than {MAX_DEPTH} levels at line {_line(node)}", _line(node))
        elif key in size:   # reached again: an alias
            added += size[key]
            if added > MAX_ALIAS_NODES:
                raise InputError(where, f"aliases expand to more than {MAX_ALIAS_NODES} nodes (the one at line "
                                        f"{_line(holder)} passes the limit); reuse fewer or smaller anchors",
                                 _line(holder))
        elif key in walking:
            raise InputError(where, f"a recursive alias at line {_line(holder)} (an anchor used inside itself); "
                                    "YAML that contains itself is not accepted", _line(holder))
        elif isinstance(node, yaml.ScalarNode):
            size[key], depth[key] = 1, 0
        else:
            if isinstance(node, yaml.MappingNode):
                _check_keys(node, where)
                held = [(child, key_node) for key_node, value in node.value for child in (key_node, value)]
            else:
                held = [(item, node) for item in node.value]
            walking.add(key)
            stack.append((node, holder, [child for child, _ in held]))
            stack.extend((child, child_holder, None) for child, child_holder in reversed(held))


def _check_keys(node: yaml.MappingNode, where: str) -> None:
    """Mapping keys are text (JSON's, and every reader's, assumption), or `<<` merging a mapping in."""
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            kind = "mapping" if isinstance(key_node, yaml.MappingNode) else "list"
            raise InputError(where, f"a {kind} used as a key at line {_line(key_node)}; keys are text",
                             _line(key_node))
        if key_node.tag not in _TEXT_KEY_TAGS:
            raise InputError(where, f"the key {clip(key_node.value, SHOWN_CHARS)!r} at line {_line(key_node)} "
                                    "is not text; quote it", _line(key_node))


def _key_lines(root: yaml.Node) -> tuple[dict[KeyPath, int], list[DuplicateKey]]:
    """The line of every key path (a node reached again through an alias is not walked again: paths through
    it take the line of the alias) and the keys given twice in one mapping."""
    lines: dict[KeyPath, int] = {(): _line(root)}
    duplicates: list[DuplicateKey] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, KeyPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key_node, value_node in node.value:
                child, line = path + (key_node.value,), _line(key_node)
                if key_node.value in first:
                    duplicates.append(DuplicateKey(child, line, first[key_node.value]))
                    continue
                first[key_node.value] = lines[child] = line
                stack.append((value_node, child))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                lines[path + (index,)] = _line(item)
                stack.append((item, path + (index,)))
    return lines, duplicates
