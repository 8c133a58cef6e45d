/**
 * Rewrites of composite ops into the core op set ({@link dev.rlx.opt.Primitives}), so a backend with only the
 * primitives runs every graph: {@link dev.rlx.opt.decompose.Decompose} is the pass; the other classes hold one
 * decomposition per composite, grouped by family (norms, the softmax family, activations, attention, RoPE,
 * the fusion products, transposed matmuls) plus the half-precision fallback.
 */
package dev.rlx.opt.decompose;
