package org.sodm.linear;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;
import org.sodm.data.SparseVector;

/**
 * One rank of DSVRG for linear ODM (seed 000 Algorithm 2) over an {@link AllReduce}. Epoch l:
 * every rank computes its block's part of the full gradient at w^(l) (line 7) with its loss sum,
 * row count and max |x|^2; the AllReduce sums them (line 9). Unless the epoch is the last or the
 * gradient is small, rank 0 runs the serial inner loop in the round robin of lines 12-20 (round
 * r: block 0's r-th instance, block 1's, ..., in block-id order, a block's instances in the
 * seeded permutation {@link Dsvrg#order}(n, seed, l, block), blocks that ran out skipped: the
 * order {@code DsvrgJob}'s reducer sees) and broadcasts w^(l+1). The inner loop is serial by
 * construction, so rank 0 holds every block ({@code all}); the other ranks only hold their own.
 */
public final class DsvrgRank implements ResidentLoop.Program {
  /** A block's rows (sorted by id) with its block id. */
  public record Block(int id, SparseVector[] x, double[] y) {}

  private final OdmPrimal odm;
  private final Block own;
  private final List<Block> all;
  private final int dim;
  private final double stepOption;
  private final int epochs;
  private final double eps;
  private final long seed;
  private double[] w;
  private double g0 = Double.NaN;
  private final List<Dsvrg.Epoch> history = new ArrayList<>();

  /**
   * @param all every block in block-id order (rank 0), or null (other ranks)
   * @param stepOption the step size option (0: 0.5 / L_max)
   * @param globalState a checkpoint's global state, or null to start at w = 0
   */
  public DsvrgRank(OdmPrimal odm, Block own, List<Block> all, int dim, double stepOption, int epochs, double eps, long seed,
      byte[] globalState) throws IOException {
    this.odm = odm;
    this.own = own;
    this.all = all;
    this.dim = dim;
    this.stepOption = stepOption;
    this.epochs = epochs;
    this.eps = eps;
    this.seed = seed;
    this.w = new double[dim + 1];
    if (globalState != null) {
      State st = decodeState(globalState);
      w = st.w();
      g0 = st.initialGradientNorm();
      history.addAll(st.history());
    }
  }

  /** The state shared by the ranks: w, |grad p(w^(0))| and the epochs so far. */
  public record State(double[] w, double initialGradientNorm, List<Dsvrg.Epoch> history) {}

  public static State decodeState(byte[] bytes) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    double[] w = StateCodec.readArray(in);
    double g0 = in.readDouble();
    int n = in.readInt();
    List<Dsvrg.Epoch> history = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      double[] e = StateCodec.readArray(in);
      history.add(new Dsvrg.Epoch((int) e[0], e[1], e[2], e[3]));
    }
    return new State(w, g0, history);
  }

  /** w after the last epoch: w^(l+1), or w^(l) when it stopped at l. */
  public double[] w() {
    return w;
  }

  public List<Dsvrg.Epoch> history() {
    return history;
  }

  public double initialGradientNorm() {
    return g0;
  }

  @Override
  public boolean iterate(int l, AllReduce ar) throws IOException {
    if (l != history.size()) throw new IllegalStateException("DSVRG rank at epoch " + history.size() + " asked for " + l);
    double bf = odm.biasFeature();
    double[] packed = new double[dim + 3];
    double maxSq = 0;
    for (int i = 0; i < own.x().length; i++) {
      SparseVector xi = own.x()[i];
      if (xi.maxIndex() > dim) throw new IllegalArgumentException("a row of block " + own.id() + " has feature " + xi.maxIndex()
          + " beyond the training dimension " + dim);
      double m = own.y()[i] * Vectors.dot(xi, w, bf);
      packed[dim + 1] += odm.loss(own.y()[i], m);
      double g = odm.coef(own.y()[i], m);
      if (g != 0) Vectors.axpy(g * own.y()[i], xi, packed, bf);
      maxSq = Math.max(maxSq, Vectors.squaredNorm(xi, bf));
    }
    packed[dim + 2] = own.x().length;
    double[] sum = ar.sum(packed);
    maxSq = ar.max(maxSq);
    long m = (long) sum[dim + 2];
    double[] gbar = new double[dim + 1];
    for (int f = 0; f <= dim; f++) gbar[f] = sum[f] / Math.max(1, m);
    double eta = Dsvrg.stepSize(stepOption, Dsvrg.DEFAULT_STEP_FACTOR, odm, maxSq);
    double gn = 0;
    for (int f = 0; f <= dim; f++) gn += (w[f] + gbar[f]) * (w[f] + gbar[f]);
    gn = Math.sqrt(gn);
    double obj = OdmPrimal.objective(Vectors.squaredNorm(w), sum[dim + 1], m);
    if (l == 0) g0 = gn;
    history.add(new Dsvrg.Epoch(l, obj, gn, eta));
    if (l == epochs || gn <= eps * g0) return true;
    double[] next = null;
    if (ar.rank() == 0) next = inner(l, eta, gbar);
    w = ar.broadcast(next);
    return false;
  }

  /** Rank 0: the inner updates of epoch l from w^(l), in the round robin over every block. */
  private double[] inner(int l, double eta, double[] gbar) {
    if (all == null) throw new IllegalStateException("rank 0 of DSVRG needs every block");
    double bf = odm.biasFeature();
    SvrgInner in = new SvrgInner(odm, eta, w, gbar);
    int[][] perm = new int[all.size()][];
    int longest = 0;
    for (int k = 0; k < all.size(); k++) {
      perm[k] = Dsvrg.order(all.get(k).x().length, seed, l, all.get(k).id());
      longest = Math.max(longest, perm[k].length);
    }
    for (int r = 0; r < longest; r++) {
      for (int k = 0; k < all.size(); k++) {
        if (r >= perm[k].length) continue;
        Block b = all.get(k);
        int i = perm[k][r];
        in.step(b.x()[i], b.y()[i], b.y()[i] * Vectors.dot(b.x()[i], w, bf));
      }
    }
    return in.w();
  }

  @Override
  public double[] progress() {
    Dsvrg.Epoch e = history.get(history.size() - 1);
    return new double[] {e.epoch(), e.objective(), e.gradientNorm(), e.eta()};
  }

  @Override
  public byte[] rankState() {
    return null;
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> {
      StateCodec.writeArray(out, w);
      out.writeDouble(g0);
      out.writeInt(history.size());
      for (Dsvrg.Epoch e : history) StateCodec.writeArray(out, new double[] {e.epoch(), e.objective(), e.gradientNorm(), e.eta()});
    });
  }
}
