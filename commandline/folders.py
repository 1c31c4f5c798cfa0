"""An output folder given on the command line, checked before any work is done."""

from __future__ import annotations

from pathlib import Path

from settings import UsageError


def writable_folder(out: str | Path, flag: str = "--out") -> Path:
    """``out`` as a folder this process can write (made if missing); a ``UsageError`` naming
    ``flag`` when it is a file or cannot be written, before hours of work are spent."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag} {out}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"{flag} {out}: cannot write there ({exc.strerror or exc})") from None
    return path
