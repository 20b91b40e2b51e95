"""A realistic host-side module: configuration, caching and a small CLI."""
from __future__ import annotations

import argparse
import functools
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Optional

log = logging.getLogger(__name__)
DEFAULTS: Dict[str, Any] = {"block": 256, "grid": None, "cache": True}


@dataclass(frozen=True)
class LaunchConfig:
    grid: tuple[int, ...] = (1,)
    block: tuple[int, ...] = (256,)
    shared: int = 0
    tags: list[str] = field(default_factory=list)

    def total_threads(self) -> int:
        return functools.reduce(lambda a, b: a * b, self.grid + self.block, 1)

    def __str__(self):
        return f"LaunchConfig(grid={self.grid}, block={self.block}, shared={self.shared:#x})"


class Cache:
    def __init__(self, root: Optional[os.PathLike] = None, *, limit: int = 1 << 20) -> None:
        self.root = Path(root or os.environ.get("WEFT_CACHE_DIR", "~/.cache/weft")).expanduser()
        self.limit = limit
        self._entries: dict[str, bytes] = {}

    def get(self, key: str, default: bytes | None = None) -> bytes | None:
        try:
            return self._entries[key]
        except KeyError:
            path = self.root / key[:2] / key
            if not path.exists():
                return default
            data = path.read_bytes()
            self._entries[key] = data
            return data

    def put(self, key, data):
        if len(data) > self.limit:
            log.warning("entry %s too large (%d > %d)", key, len(data), self.limit)
            return False
        self._entries[key] = data
        return True

    def __contains__(self, key):
        return key in self._entries or (self.root / key[:2] / key).exists()


def memoize(fn: Callable) -> Callable:
    cache = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = fn(*args, **kwargs)
        return cache[key]

    return wrapper


def parse_args(argv: Iterable[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", help="input files")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--block", type=int, default=DEFAULTS["block"])
    return parser.parse_args(None if argv is None else list(argv))


def main(argv=None) -> int:
    args = parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level)
    config = LaunchConfig(block=(args.block,))
    summary = {name: os.path.getsize(name) for name in args.files if os.path.exists(name)}
    print(json.dumps({"config": str(config), "files": summary}, indent=2))
    return 0 if summary or not args.files else 1


if __name__ == "__main__":
    raise SystemExit(main())
