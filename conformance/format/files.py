"""Writing the suite's own files: paths checked before a run starts, files replaced atomically.

`usable_path` refuses, as a usage error, what no later write could get past: a path that is not UTF-8 text
(the reports and the terminal name it), a name longer than its file system takes (255 bytes on most), a path
longer than PATH_MAX. `output_directory` also creates the directory and checks that it can be written into.
`write_atomic` writes a temporary file beside its destination and renames it over it (os.replace): no
reader, and no run killed or stopped by a full disk midway, ever sees half a file; its OSError is the caller's
to name (errors.MachineFault while a run writes, a usage error before).
"""
from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from ascendc_conformance.format.errors import ConformanceError

NAME_MAX, PATH_MAX = 255, 4096
"""Linux's limits, used where the file system does not say its own (os.pathconf)."""

_TEMP_PREFIX_CHARS = 64   # of the destination's name in its temporary file's (a long name must still fit)


def usable_path(path: Path) -> Path:
    """`path` if a file could be written there; ConformanceError (one line, for the caller to prefix with the
    option that gave it) otherwise."""
    raw = utf8_path(path)
    anchor = _existing_ancestor(path)
    name_max, path_max = _limit(anchor, "PC_NAME_MAX", NAME_MAX), _limit(anchor, "PC_PATH_MAX", PATH_MAX)
    for part in path.parts:
        if len(os.fsencode(part)) > name_max:
            raise ConformanceError(f"the name {part[:40]}… is {len(os.fsencode(part))} bytes long; the file system "
                                   f"takes names of at most {name_max} bytes")
    if len(raw) >= path_max:
        raise ConformanceError(f"the path is {len(raw)} bytes long; the file system takes paths of at most "
                               f"{path_max - 1} bytes")
    return path


def utf8_path(path: Path) -> bytes:
    """The path's name as UTF-8 bytes; ConformanceError for a path that is not UTF-8 text (a name read from the
    file system as bytes that are not), which no report or terminal line could name."""
    text = str(path)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        raise ConformanceError(f"the path {shown} is not UTF-8 text; the reports and the terminal name it: give a "
                               "path in UTF-8") from None


def output_directory(path: Path) -> Path:
    """`path` as a directory to write into, created if need be (with its parents); ConformanceError (one line)
    for a path that is not usable (`usable_path`), a file, or a directory that cannot be created or written
    into (a read-only file system, no permission)."""
    usable_path(path)
    try:
        if path.exists() and not path.is_dir():
            raise ConformanceError(f"{path} is a file; expected a directory")
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConformanceError(f"cannot create the directory {path} ({error.strerror or error})") from None
    if not os.access(path, os.W_OK | os.X_OK):   # a read-only file system refuses root too
        reason = "a read-only file system" if _read_only(path) else "no permission"
        raise ConformanceError(f"cannot write into the directory {path} ({reason})")
    return path


def write_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary file in the same directory renamed over it, with the mode a
    new file gets (umask applied); on any error the temporary file is removed and the OSError raised."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name[:_TEMP_PREFIX_CHARS]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)   # mkstemp makes 0600; the file is as readable as any other
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        with contextlib.suppress(OSError):
            if candidate.exists():
                return candidate
    return Path(".")


def _limit(path: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(path, name)
    except (OSError, ValueError):
        return default


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError as error:
        return error.errno == errno.EROFS
