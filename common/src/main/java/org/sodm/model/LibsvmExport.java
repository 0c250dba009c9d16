package org.sodm.model;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;

/**
 * Writes a model in LIBSVM's text format so {@code svm-predict} can cross-check it. The mean of
 * the B blocks is one kernel expansion (every coefficient divided by B), so any sodm model is
 * exported as a C-SVC with labels (+1 label, -1 label), sv_coef = coef, and rho = -bias: LIBSVM
 * computes sum sv_coef_i k(sv_i, x) - rho and predicts the first label when it is > 0 (sodm: >= 0,
 * which differs only on exact ties). The regularised bias and the ODM loss do not matter to
 * prediction, only to training. Inputs must be scaled the same way: {@link #writeRange} writes
 * the scaler as an {@code svm-scale -r} range file.
 *
 * <p>A linear model (w, b) is exported as a linear-kernel C-SVC with one support vector w, coefficient
 * 1 and rho = -b: LIBSVM then computes w'x + b exactly.
 */
public final class LibsvmExport {
  private LibsvmExport() {}

  public static void write(Model m, Writer w) throws IOException {
    if (m instanceof LinearModel l) writeLinear(l, w);
    else writeKernel((KernelModel) m, w);
  }

  private static void writeKernel(KernelModel m, Writer w) throws IOException {
    KernelSpec k = m.kernelSpec();
    int nb = m.blockCount();
    double bias = 0;
    long total = 0;
    for (int b = 0; b < nb; b++) {
      bias += m.block(b).bias() / nb;
      total += m.block(b).size();
    }
    w.write("svm_type c_svc\n");
    w.write("kernel_type " + k.type().id().replace("poly", "polynomial") + "\n");
    if (k.type() == KernelSpec.Type.POLY) w.write("degree " + k.degree() + "\n");
    if (k.type() != KernelSpec.Type.LINEAR) w.write("gamma " + fmt(k.gamma()) + "\n");
    if (k.type() == KernelSpec.Type.POLY || k.type() == KernelSpec.Type.SIGMOID) w.write("coef0 " + fmt(k.coef0()) + "\n");
    w.write("nr_class 2\n");
    w.write("total_sv " + total + "\n");
    w.write("rho " + fmt(bias == 0 ? 0.0 : -bias) + "\n");
    w.write("label " + m.labels().positive() + " " + m.labels().negative() + "\n");
    long pos = 0;
    for (int b = 0; b < nb; b++) {
      for (int i = 0; i < m.block(b).size(); i++) if (m.block(b).coef(i) > 0) pos++;
    }
    w.write("nr_sv " + pos + " " + (total - pos) + "\n");
    w.write("SV\n");
    // LIBSVM expects the SVs of the first label first
    for (int pass = 0; pass < 2; pass++) {
      for (int b = 0; b < nb; b++) {
        KernelExpansion e = m.block(b);
        for (int i = 0; i < e.size(); i++) {
          double c = e.coef(i) / nb;
          if ((pass == 0) != (e.coef(i) > 0)) continue;
          w.write(fmt(c));
          SparseVector v = e.supportVector(i);
          for (int t = 0; t < v.nnz(); t++) w.write(" " + v.index(t) + ":" + fmt(v.value(t)));
          w.write(" \n");
        }
      }
    }
  }

  private static void writeLinear(LinearModel m, Writer w) throws IOException {
    w.write("svm_type c_svc\n");
    w.write("kernel_type linear\n");
    w.write("nr_class 2\n");
    w.write("total_sv 1\n");
    w.write("rho " + fmt(m.bias() == 0 ? 0.0 : -m.bias()) + "\n");
    w.write("label " + m.labels().positive() + " " + m.labels().negative() + "\n");
    w.write("nr_sv 1 0\n");
    w.write("SV\n");
    w.write("1");
    double[] wt = m.w();
    for (int f = 0; f < wt.length; f++) if (wt[f] != 0) w.write(" " + (f + 1) + ":" + fmt(wt[f]));
    w.write(" \n");
  }

  /** The scaler as an svm-scale range file ({@code svm-scale -r FILE}). */
  public static void writeRange(Scaler s, Writer w) throws IOException {
    org.sodm.avro.ScalerRecord r = s.toAvro();
    w.write("x\n" + fmt(r.getLower()) + " " + fmt(r.getUpper()) + "\n");
    for (int k = 0; k < r.getIndices().size(); k++) {
      w.write(r.getIndices().get(k) + " " + fmt(r.getMins().get(k)) + " " + fmt(r.getMaxs().get(k)) + "\n");
    }
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.17g", v).replaceAll("\\.?0+(e|$)", "$1");
  }
}
