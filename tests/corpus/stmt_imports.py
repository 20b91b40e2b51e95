import os
import os.path as osp, sys
import xml.etree.ElementTree as ET
from . import sibling
from .. import parent
from ...pkg import thing as other
from .mod.sub import (a, b as bee,
                      c,)
from __future__ import annotations
from collections import *
from . mod import x
from ....deep import y
