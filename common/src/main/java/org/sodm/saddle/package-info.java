/**
 * Saddle-SVC and Saddle-DSVC (seed 002, "SVM via saddle point optimization"): hard-margin SVM
 * and nu-SVM with the linear kernel as the saddle-point problems (4) and (8), solved by randomized
 * primal coordinate steps on w (9) and multiplicative-weights steps on the class weights eta, xi
 * (10)-(11), projected onto the capped simplex for nu-SVM ((12) and Appendix A), in O(n) per
 * iteration.
 *
 * <ul>
 *   <li>{@link org.sodm.saddle.SaddleSvc#train}: the entry point (options in {@link
 *       org.sodm.saddle.SaddleOptions}, result in {@link org.sodm.saddle.SaddleResult}, {@link
 *       org.sodm.saddle.NotSeparableException} when the hulls touch);</li>
 *   <li>{@link org.sodm.saddle.Preprocessing} and {@link org.sodm.saddle.Hadamard}: Algorithm 1's
 *       transform W D x / s; {@link org.sodm.saddle.SaddleParameters}: its line 4;</li>
 *   <li>{@link org.sodm.saddle.SaddleClient} and {@link org.sodm.saddle.SaddleServer}: the two sides
 *       of every round of Algorithm 4, so that a distributed runtime can run the same arithmetic
 *       with a client per task; {@code SaddleRun} runs them in process;</li>
 *   <li>{@link org.sodm.saddle.CappedSimplex}: the capped-simplex projection rules and the linear
 *       minimum over the capped simplex.</li>
 * </ul>
 */
package org.sodm.saddle;
