// The header every weft translation unit includes: numbers with Python semantics, arrays and
// their views, thread positions and barriers. Small on purpose: NVRTC parses it for every
// compile. A unit adds math.h, simt.h, atomics.h and print.h only when it calls one of their
// builtins (sema/builtin_kinds.def's header column), and interop.h (libcu++) only for the ABI
// check of interoperable units.
#pragma once

#include "weft/device/array.h"
#include "weft/device/array_views.h"
#include "weft/device/config.h"
#include "weft/device/intrinsics.h"
#include "weft/device/numeric.h"
