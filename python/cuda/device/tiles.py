"""`cuda.device.tiles`: weft's tile programming with the Tile C++ seed's names (docs/tiles.md)."""

from weft.tiles import *  # noqa: F401,F403
from weft.tiles import __all__  # noqa: F401
