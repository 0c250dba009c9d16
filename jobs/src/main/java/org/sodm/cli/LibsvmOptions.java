package org.sodm.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What an option of {@code svm-train}, {@code svm-predict}, {@code svm-scale} or {@code liblinear-train} is called here,
 * for a command line that gave one: a LIBSVM user's {@code -b 1}, {@code -m 500}, {@code -w1 5}, {@code -s 0},
 * {@code -l 0 -u 1} or (on train) {@code -v 5} fails as an unknown option, and the error says which sodm option does that
 * (or that sodm has no such thing), instead of leaving them to search the help. Files given without {@code -i} / {@code
 * -o}, as those programs take them, are named too.
 * {@code -h 0} (svm-train's shrinking switch) is refused before picocli reads {@code -h} as a request for help, and
 * {@code -t 2} (svm-train's kernel type, sodm train's validation data) is explained when no such file exists.
 */
final class LibsvmOptions {
  private LibsvmOptions() {}

  /** svm-train's -t values, as sodm's --kernel. */
  private static final Map<String, String> KERNELS = Map.of("0", "--kernel linear", "1", "--kernel poly", "2",
      "--kernel rbf (the default)", "3", "--kernel sigmoid", "4", "no precomputed kernel: sodm computes the kernel itself");

  /** The commands that take svm-train's options (grid.py passes them on too) and svm-predict's. */
  private static boolean trains(String command) {
    return List.of("train", "cv", "grid").contains(command);
  }

  /**
   * One line per LIBSVM option among {@code unmatched} (the tokens the command did not take, in order; an option's value
   * follows it) that {@code command} spells otherwise. {@code args}, the whole command line, tells whether it trains a
   * linear model ({@code --kernel linear}), whose user comes from {@code liblinear-train}: {@code -s} is then LIBLINEAR's.
   */
  static List<String> hints(String command, List<String> unmatched, List<String> args) {
    boolean linear = false;
    for (int k = 0; k < args.size(); k++) {
      linear |= "--kernel=linear".equals(args.get(k)) || "--kernel".equals(args.get(k)) && k + 1 < args.size() && "linear".equals(args.get(k + 1));
    }
    List<String> out = new ArrayList<>();
    for (int k = 0; k < unmatched.size(); k++) {
      String o = unmatched.get(k);
      String next = k + 1 < unmatched.size() ? unmatched.get(k + 1) : null;
      String v = next != null && (!next.startsWith("-") || next.matches("-[0-9.,]+")) ? next : null;
      String h = !trains(command) ? ("predict".equals(command) ? predictHint(o, v) : null)
          : linear || "-B".equals(o) || "-C".equals(o) ? liblinearHint(command, o, v) : null;
      if (h == null && "grid".equals(command)) h = gridHint(o, v);
      if (h == null && trains(command)) h = trainHint(command, o, v);
      if (h == null && (trains(command) || "ingest".equals(command))) h = scaleHint(command, o, v);
      if (h != null) out.add(h);
    }
    return out;
  }

  /** svm-scale's options on the commands that scale (train, cv, grid, ingest: --scale), or null. */
  private static String scaleHint(String command, String o, String v) {
    String is = "svm-scale's " + o + (v == null ? "" : " " + v);
    switch (o) {
      case "-l":
      case "-u":
        return is + ": --scale L,U here (--scale 0,1 as svm-scale -l 0 -u 1, --scale -1,1 its default)";
      case "-s":
      case "-r":
        return "ingest".equals(command) ? is + ": the ranges are kept with the data and every model trained on it, and predict "
            + "applies them; sodm export-libsvm writes svm-scale's range file" : null;
      case "-y":
        return is + ": labels are not scaled here";
      default:
        return null;
    }
  }

  /** liblinear-train's -s, -B and -C, or null (its other options are svm-train's). */
  private static String liblinearHint(String command, String o, String v) {
    if ("-C".equals(o)) { // it takes no value
      return "grid".equals(command) ? "liblinear-train's -C is what sodm grid --kernel linear does (each C warm-started from the "
          + "previous one): drop -C"
          : "liblinear-train's -C (a search of C, each C warm-started from the previous one) is sodm grid --kernel linear -i DATA "
          + "-o DIR --log2c B,E,S here (--log2c auto: its range of C)";
    }
    String is = "liblinear-train's " + o + (v == null ? "" : " " + v);
    if ("-B".equals(o)) {
      return is + (v != null && v.startsWith("-") ? " is the default here (no bias)" : " is --bias here (a regularised constant feature of value 1)");
    }
    if (!"-s".equals(o)) return null;
    switch (v == null ? "" : v) {
      case "1":
      case "2":
        return is + " (L2-loss SVC) is --kernel linear --loss squared-hinge here";
      case "3":
        return is + " (L1-loss SVC) is --kernel linear --loss hinge here";
      case "4":
        return is + " (Crammer and Singer) is not in sodm: several classes are trained one against the rest (--multiclass ovr)";
      case "5":
        return is + ": sodm's L1 regularisation is logistic regression's (--kernel linear --loss logistic --penalty l1, as -s 6)";
      case "0":
      case "7":
        return is + " (L2-regularised logistic regression) is --kernel linear --loss logistic here (TRON, as -s 0; its models give "
            + "probabilities)";
      case "6":
        return is + " (L1-regularised logistic regression) is --kernel linear --loss logistic --penalty l1 here (newGLMNET, as LIBLINEAR, or OWL-QN: --l1-solver; a sparse w)";
      default:
        return is + ": sodm's linear classifiers are --loss hinge (-s 3), squared-hinge (-s 1, 2), logistic (-s 0, 7) or odm "
            + "(the default)";
    }
  }

  /** grid.py's own options (one dash, long names), or null. */
  private static String gridHint(String o, String v) {
    String is = "grid.py's " + o + (v == null ? "" : " " + v);
    switch (o) {
      case "-log2c":
      case "-log2g":
        return is + " is -" + o + " " + (v == null ? "B,E,S" : v) + " here";
      case "-out":
      case "-png":
        return is + ": -o DIR here writes DIR/grid.csv, DIR/grid.json and DIR/grid.png";
      case "-resume":
        return is + " is --resume here (the grid in -o DIR continues from its last complete gamma row)";
      case "-svmtrain":
      case "-gnuplot":
        return is + ": not needed here (sodm trains and draws the plot itself)";
      default:
        return null;
    }
  }

  private static String trainHint(String command, String o, String v) {
    String is = "svm-train's " + o + (v == null ? "" : " " + v);
    if (o.matches("-w[^=]+")) {
      return is + " (a class weight) is --class-weights " + o.substring(2) + ":" + (v == null ? "W" : v)
          + " here (several: --class-weights L1:W1,L2:W2)";
    }
    switch (o) {
      case "-s":
        if ("0".equals(v)) return is + " (C-SVC) is --loss hinge here (sodm's default loss is odm)";
        if ("1".equals(v)) return is + " (nu-SVC) is --loss nu --nu NU here";
        return is + ": sodm trains classifiers (C-SVC: --loss hinge, nu-SVC: --loss nu); no one-class SVM, no regression";
      case "-t":
        return is + " is " + (v != null && KERNELS.containsKey(v) ? KERNELS.get(v) : "--kernel linear|poly|rbf|sigmoid") + " here";
      case "-d":
        return is + " is --degree " + (v == null ? "D" : v) + " here";
      case "-r":
        return is + " is --coef0 " + (v == null ? "R" : v) + " here";
      case "-n":
        return is + " is --nu " + (v == null ? "NU" : v) + " here (with --loss nu)";
      case "-p":
        return is + " is epsilon-SVR's: sodm has no regression";
      case "-m":
        return is + " is --cache-mb " + (v == null ? "MB" : v) + " here";
      case "-b":
        return is + (("0".equals(v)) ? " is the default here (no --probability)" : " is --probability here");
      case "-v":
        return "train".equals(command) ? is + " (cross-validation) is sodm cv --folds " + (v == null ? "K" : v)
            + " with the same options" : null;
      default:
        return null;
    }
  }

  private static String predictHint(String o, String v) {
    String is = "svm-predict's " + o + (v == null ? "" : " " + v);
    switch (o) {
      case "-b":
        return is + ": a model trained with --probability gives the probabilities by itself (predict --text writes "
            + "svm-predict -b 1's file)";
      default:
        return null;
    }
  }

  /**
   * svm-train's {@code -h 0} or {@code -h 1} (shrinking) in the arguments of a command that takes svm-train's options:
   * the error to print (picocli would take {@code -h} as help, print it and exit 0 without training), or null.
   */
  static String shrinkingSwitch(String command, String[] args) {
    if (!trains(command)) return null;
    for (int k = 0; k + 1 < args.length; k++) {
      if (!"-h".equals(args[k]) || !("0".equals(args[k + 1]) || "1".equals(args[k + 1]))) continue;
      return "svm-train's -h " + args[k + 1] + ": -h is help here; shrinking is on by default"
          + ("0".equals(args[k + 1]) ? " and --no-shrinking turns it off" : ", so leave -h 1 out");
    }
    return null;
  }

  /**
   * For a command line missing its required options that named files without them, as svm-train's and svm-predict's do
   * (options, then the files): how sodm takes those files, or null. {@code unmatched}: the tokens the command did not take.
   */
  static String positionalHint(String command, List<String> unmatched) {
    if (unmatched.stream().allMatch(t -> t.startsWith("-"))) return null;
    switch (command) {
      case "train":
        return "svm-train's files TRAIN [MODEL] are options here: sodm train -i TRAIN -o DIR (the model is DIR/model.avro)";
      case "cv":
        return "svm-train -v's file TRAIN is an option here: sodm cv -i TRAIN";
      case "grid":
        return "grid.py's file TRAIN is an option here: sodm grid -i TRAIN -o DIR";
      default:
        break;
    }
    if ("predict".equals(command)) {
      return "svm-predict's files TEST MODEL OUTPUT are options here: sodm predict -i TEST -m MODEL_DIR -o DIR --text "
          + "(DIR/predictions.txt is svm-predict's OUTPUT)";
    }
    return null;
  }

  /**
   * What another sodm command's option is called on {@code command}, for the tokens it did not take ({@code unmatched}, in order):
   * {@code -i} / {@code -m} out of the habit of train and predict, given to a command that takes its data or model as its
   * argument (stats, inspect, the exports) or its predictions by {@code -p} (evaluate); null when none applies. The value shown
   * is the token after the option in the whole command line {@code args} (picocli may have taken it as the argument).
   */
  static String sodmHint(String command, List<String> unmatched, List<String> args) {
    for (String o : unmatched) {
      int at = args.indexOf(o);
      String v = at >= 0 && at + 1 < args.size() && !args.get(at + 1).startsWith("-") ? args.get(at + 1) : null;
      boolean input = List.of("-i", "--input").contains(o);
      boolean model = List.of("-m", "--model").contains(o);
      String arg = v == null ? "" : " " + v;
      switch (command) {
        case "evaluate":
          if (input) return o + " is -p (--predictions) here: sodm evaluate -p" + (v == null ? " DIR" : arg) + " (predict's output directory)";
          break;
        case "stats":
          if (input) return "the data are stats' argument here, without " + o + ": sodm stats" + (v == null ? " DATA" : arg);
          break;
        case "inspect":
          if (input || model) return "the model is inspect's argument here, without " + o + ": sodm inspect" + (v == null ? " MODEL" : arg);
          break;
        case "export-libsvm":
        case "export-liblinear":
          if (input || model) {
            return "the model is " + command + "'s argument here, without " + o + ": sodm " + command + (v == null ? " MODEL" : arg) + " -o FILE";
          }
          break;
        default:
          break;
      }
    }
    return null;
  }

  /** The text added to "validation input X does not exist" when X is svm-train's {@code -t} kernel type, or "". */
  static String validationHint(String path) {
    return KERNELS.containsKey(path) ? " (-t is --validation here: svm-train's -t " + path + " is " + KERNELS.get(path) + ")" : "";
  }
}
