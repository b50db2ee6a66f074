"""The web table's files in `--data`: one JSON file a table, written atomically and durably, read
back only once it matches schemas/table.schema.json, and set aside (renamed, never deleted) when
it does not, so one tampered or broken file cannot stop a restart or answer 500 later.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from kbdsl.protocol import RequestError, parse
from kbdsl.yamlio import schema, strict_validator

MAX_FILE = 8_000_000  # bytes of one saved table: a whole game's save is far smaller
ASIDE = ".rejected"  # the suffix of a file set aside (no longer *.json, so never read again)


@cache
def _validator() -> jsonschema.protocols.Validator:
    return strict_validator(schema("table"))


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that a crash leaves either the old one or the new one, never half of one, and
    a write that returned is on the disk (the file is synced before the rename, the folder after it
    where the system allows); OSError, the old file untouched, if it cannot be written."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):  # the new file is in place: the caller must not think otherwise
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def read_table(path: Path) -> dict[str, Any]:
    """A saved table's document, checked against its schema; ValueError saying what is wrong."""
    if path.stat().st_size > MAX_FILE:
        raise ValueError(f"it is larger than {MAX_FILE} bytes")
    try:
        doc = parse(path.read_bytes(), MAX_FILE)
    except RequestError as e:
        raise ValueError(e.message.replace("the line", "the file")) from None
    error = jsonschema.exceptions.best_match(_validator().iter_errors(doc))
    if error is not None:  # said without the value, which may be a seat's token
        where = "/".join(map(str, error.absolute_path))
        raise ValueError(f"{where or 'the file'}: {error.message.replace(repr(error.instance), 'the value')}")
    if doc["table"] != path.stem:
        raise ValueError(f"it holds table {doc['table']!r}, not the one its name says")
    return doc


def set_aside(path: Path) -> Path | None:
    """Rename a file that cannot be restored out of the way (TABLE.json.rejected, or .rejected.N);
    None if even that fails."""
    for n in range(100):
        aside = path.with_name(path.name + ASIDE + (f".{n}" if n else ""))
        if not aside.exists():
            with contextlib.suppress(OSError):
                path.rename(aside)
                return aside
            return None
    return None


def remove_temporaries(folder: Path) -> list[Path]:
    """Delete the temporary files a crash left behind (`.TABLE.json.*.tmp`: they hold seat tokens)."""
    removed = []
    for tmp in folder.glob(".*.json.*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed.append(tmp)
    return removed
