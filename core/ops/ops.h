// Every op in one include, for model code.
#pragma once
#include "ops/activations.h"
#include "ops/arith.h"
#include "ops/dropout.h"
#include "ops/embed.h"
#include "ops/fused.h"
#include "ops/fused_cells.h"
#include "ops/layer_norm.h"
#include "ops/linalg.h"
#include "ops/loss.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/softmax.h"
