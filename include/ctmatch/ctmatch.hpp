#pragma once
// ctmatch: the whole CPU part of the library. (The CUDA part is ctmatch/cuda.hpp.)
#include "graph.hpp"
#include "io.hpp"
#include "pattern.hpp"
#include "rewrite.hpp"
#include "schema.hpp"
#include "tune.hpp"
#include "version.hpp"
