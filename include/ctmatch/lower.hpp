#pragma once
// From graph nodes to kernel problems: lower/gemm_problem.hpp (the typed GEMM problem and its
// epilogue) and lower/from_node.hpp (a GEMM-like node as that problem).
#include "lower/from_node.hpp"
#include "lower/gemm_problem.hpp"
