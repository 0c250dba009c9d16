package org.sodm.cli;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.sodm.avro.BlockModel;
import org.sodm.avro.LevelStats;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "inspect", description = "Print a model readably: kernel, loss, labels, scaler, blocks, provenance and per-level statistics.")
public final class InspectCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "MODEL", description = "model.avro or a training output directory.")
  String model;

  @Option(names = "--parameters", description = "Also list every parameter in force at training.")
  boolean parameters;

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    ModelRecord r = ModelFiles.readRecord(conf, ModelFiles.resolve(conf, model));
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "model      %s (format %d)%n", ModelFiles.resolve(conf, model), r.getFormatVersion()));
    sb.append(String.format(Locale.ROOT, "kernel     %s%n", org.sodm.model.ModelCodec.kernelOf(r.getKernel())));
    var l = r.getLoss();
    var params = r.getProvenance() == null ? null : r.getProvenance().getParameters();
    Object imported = params == null ? null : params.get(ImportLibsvmCommand.SOURCE);
    Object importedLinear = params == null ? null : params.get(ImportLiblinearCommand.SOURCE);
    if (imported != null) {
      sb.append(String.format(Locale.ROOT, "loss       not recorded: imported from the LIBSVM model %s (svm-train's C and svm_type are not "
          + "needed to predict)%n", imported));
    } else if (importedLinear != null) {
      sb.append(String.format(Locale.ROOT, "loss       not recorded: imported from the LIBLINEAR model %s (liblinear-train's C is not "
          + "needed to predict; its solver_type is the tasks' solver)%n", importedLinear));
    } else sb.append(String.format(Locale.ROOT, "loss       %s%n", switch (l.getType()) {
      case "odm" -> String.format(Locale.ROOT, "odm (lambda=%s, theta=%s, mu=%s)", l.getLambda(), l.getTheta(), l.getMu());
      case "nu" -> String.format(Locale.ROOT, "nu (nu=%s)", l.getC());
      case "hard-margin" -> "hard-margin";
      default -> String.format(Locale.ROOT, "%s (C=%s)", l.getType(), l.getC());
    } + (l.getBias() ? ", regularised bias (k + 1)" : l.getType().equals("nu") || l.getType().equals("hard-margin")
        ? ", offset b fitted" : ", no bias")
        + (l.getPositiveWeight() != 1 || l.getNegativeWeight() != 1
            ? String.format(Locale.ROOT, ", class weights +1:%s -1:%s", l.getPositiveWeight(), l.getNegativeWeight()) : "")
        + penalty(params)));
    var mc = r.getMulticlass();
    if (mc == null) {
      sb.append(String.format(Locale.ROOT, "labels     %s -> -1, %s -> +1%n", r.getLabels().getNegative(), r.getLabels().getPositive()));
    } else {
      java.util.List<String> cls = new java.util.ArrayList<>();
      for (Object c : mc.getClasses()) cls.add(c.toString());
      sb.append(String.format(Locale.ROOT, "classes    %d: %s (class index order)%n", cls.size(), String.join(", ", cls)));
      Object coupling = params == null ? null : params.get(MulticlassModel.COUPLING);
      boolean softmax = coupling != null && MulticlassModel.SOFTMAX_COUPLING.equals(coupling.toString());
      if (softmax) {
        sb.append(String.format(Locale.ROOT, "scheme     multinomial, one softmax model: a w per class%s%n", probabilities(coupling)));
      } else {
        sb.append(String.format(Locale.ROOT, "scheme     %s, %d binary tasks%s%n", mc.getScheme(), mc.getTasks().size(),
            mc.getTasks().get(0).getPlattA() == null ? "" : probabilities(coupling)));
      }
      for (var t : mc.getTasks()) {
        long n = 0;
        for (BlockModel b : t.getBlocks()) n += b.getCoef().size();
        String neg = softmax ? "class" : t.getNegative() < 0 ? "rest" : cls.get(t.getNegative());
        String sig = t.getPlattA() == null || softmax ? "" : String.format(Locale.ROOT, "  sigmoid A %.6g B %.6g", t.getPlattA(), t.getPlattB());
        if (t.getLinear() != null) { // a linear solver's task: w and b, no expansion
          int nz = 0;
          for (double v : t.getLinear().getW()) if (v != 0) nz++;
          sb.append(String.format(Locale.ROOT, "  task %-8s linear (%s), %d weights (%d non-zero), b %.6g%s%n", neg + "/"
              + cls.get(t.getPositive()), t.getLinear().getSolver(), t.getLinear().getW().size(), nz, t.getLinear().getBias(), sig));
          continue;
        }
        sb.append(String.format(Locale.ROOT, "  task %-8s %,7d SV in %d block(s)%s%n", neg + "/" + cls.get(t.getPositive()), n,
            t.getBlocks().size(), sig));
      }
    }
    sb.append(String.format(Locale.ROOT, "scaler     %s%n", r.getScaler() == null ? "none"
        : String.format(Locale.ROOT, "[%s, %s] on %d features", r.getScaler().getLower(), r.getScaler().getUpper(), r.getScaler().getIndices().size())));
    if (r.getLinear() != null) {
      var lin = r.getLinear();
      double norm = 0;
      int nz = 0;
      for (double v : lin.getW()) {
        norm += v * v;
        if (v != 0) nz++;
      }
      sb.append(String.format(Locale.ROOT, "linear     f(x) = w'x + b by %s: %d weights (%d non-zero), |w| %.6g, b %.6g%n", lin.getSolver(),
          lin.getW().size(), nz, Math.sqrt(norm), lin.getBias()));
    }
    long sv = 0;
    for (BlockModel b : r.getBlocks()) sv += b.getCoef().size();
    sb.append(String.format(Locale.ROOT, "blocks     %d, combined by %s of decision values; %,d support vectors%n",
        r.getBlocks().size(), r.getCombine(), sv));
    for (BlockModel b : r.getBlocks()) {
      double pos = 0, neg = 0;
      for (double c : b.getCoef()) {
        if (c > 0) pos += c;
        else neg += c;
      }
      sb.append(String.format(Locale.ROOT, "  block %-4d %,7d SV  bias %.6g  sum coef +%.6g / %.6g%n", b.getBlock(), b.getCoef().size(),
          b.getBias(), pos, neg));
    }
    Provenance p = r.getProvenance();
    sb.append(String.format(Locale.ROOT, "%s %s by sodm %s%n", imported != null ? "imported  " : "trained   ", p.getCreatedAt(),
        p.getSodmVersion()));
    sb.append(String.format(Locale.ROOT, "input      %s%n           %s%n", p.getInput(), p.getInputFingerprint()));
    sb.append(p.getDimension() == null || p.getDimension() == 0
        ? String.format(Locale.ROOT, "features   not recorded: prediction uses every feature of a row%n")
        : String.format(Locale.ROOT, "features   1..%s (prediction ignores, and counts, higher indices)%n", p.getDimension()));
    sb.append(String.format(Locale.ROOT, "%-7s %6s %14s %10s %10s %9s %14s %8s %9s%n", "level", "blocks", "objective", "violation",
        "initial", "SV", "kernel evals", "wall s", "val acc"));
    for (LevelStats s : p.getLevels()) {
      sb.append(String.format(Locale.ROOT, "%-7d %6d %14.8g %10.3g %10.3g %9d %14d %8.2f %9s%n", s.getLevel(), s.getBlocks(),
          s.getObjective(), s.getMaxViolation(), s.getMaxInitialViolation(), s.getSupportVectors(), s.getKernelEvaluations(),
          s.getWallSeconds(), s.getValidationAccuracy() == null ? "-"
              : String.format(Locale.ROOT, "%.2f%%", 100 * s.getValidationAccuracy())));
    }
    if (parameters) {
      sb.append("parameters\n");
      for (Map.Entry<String, String> e : new TreeMap<>(p.getParameters()).entrySet()) {
        sb.append("  ").append(e.getKey()).append(" = ").append(e.getValue()).append('\n');
      }
    }
    out().print(sb);
    return 0;
  }
  /** How the model's probabilities are computed, by its coupling ({@link MulticlassModel#COUPLING}). */
  /** The regulariser when it is not 1/2 |w|^2: --penalty l1 or elasticnet, as the run recorded it. */
  private static String penalty(Map<String, String> params) {
    String p = params == null ? null : params.get(org.sodm.model.LiblinearExport.PENALTY);
    if ("l1".equals(p)) return ", penalty |w|_1 (L1)";
    if (!"elasticnet".equals(p)) return "";
    String rho = params.get(org.sodm.jobs.spec.Param.L1_RATIO.key());
    return ", penalty elastic net rho |w|_1 + (1 - rho)/2 |w|^2, rho " + (rho == null || rho.isEmpty() ? "0.5" : rho);
  }

  static String probabilities(Object coupling) {
    if (coupling == null) return ", probability estimates (Platt sigmoids, pairwise coupling)";
    if (MulticlassModel.SOFTMAX_COUPLING.equals(coupling.toString())) {
      return ", probability estimates (multinomial logistic regression: the softmax of the classes' f)";
    }
    if (MulticlassModel.LIBLINEAR_COUPLING.equals(coupling.toString())) {
      return ", probability estimates (logistic: the tasks' sigmoids of f, normalised to sum 1, as liblinear-predict -b 1)";
    }
    return ", probability estimates (Platt sigmoids, pairwise coupling as svm-predict -b 1 computes it)";
  }
}
