// blur_spec.hpp — the filter spec under its first name (BlurSpec), for the files that include it
// so; the spec itself is filter_spec.hpp's.
#pragma once

#include "ops/filter_spec.hpp"
