#pragma once
// The runtime graph layer: values, ops, nodes, the graph and its verifier.
#include "graph/device.hpp"
#include "graph/error.hpp"
#include "graph/graph.hpp"
#include "graph/layout.hpp"
#include "graph/node.hpp"
#include "graph/op.hpp"
#include "graph/scalar_type.hpp"
#include "graph/tensor_meta.hpp"
#include "graph/value.hpp"
#include "graph/verify.hpp"
