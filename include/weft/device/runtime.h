// The one header a weft translation unit includes: numbers with Python semantics, math,
// arrays and SIMT intrinsics. Small on purpose: NVRTC parses it for every compile.
#pragma once

#include "weft/device/array.h"
#include "weft/device/array_views.h"
#include "weft/device/config.h"
#include "weft/device/intrinsics.h"
#include "weft/device/math.h"
#include "weft/device/numeric.h"
