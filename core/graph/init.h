// Initialisers as values (Marian's inits:: style): each returns an Init that fills a matrix from an Rng.
// The papers' default is uniform(-0.08, 0.08).
#pragma once
#include "graph/param.h"

namespace twin::init {

Init uniform(Real a);                 // U(-a, a)
Init normal(Real stddev);             // N(0, stddev^2)
Init glorot_uniform();                // U(-s, s), s = sqrt(6 / (rows + cols))
Init orthogonal(Real gain = 1);       // QR of a Gaussian matrix; each [H,H] block orthogonal when cols = k*rows
Init constant(Real c);
Init identity();                      // square only

}  // namespace twin::init
