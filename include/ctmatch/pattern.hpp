#pragma once
// The pattern layer: the compile-time DSL, the matcher, typed matches and explanations.
// Start with pattern/dsl.hpp (the vocabulary), then op.hpp, leaf.hpp, call.hpp, match.hpp;
// examples/seed_kwargs.cpp shows it at work.
#include "pattern/aten.hpp"
#include "pattern/dsl.hpp"
