package org.sodm.model;

import java.util.ArrayList;
import java.util.List;
import org.sodm.avro.BlockModel;
import org.sodm.avro.Features;
import org.sodm.avro.KernelRecord;
import org.sodm.avro.LinearModelRecord;
import org.sodm.avro.LocalRouting;
import org.sodm.avro.LossRecord;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.SupportVectorTable;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.partition.KernelKMeans;
import org.sodm.solver.Loss;

/**
 * The Avro form of a {@link Model} ({@code Model.avsc}): a kernel model's blocks (support vector ids, coefficients,
 * vectors, bias) and routing - with the vectors once in a table by id when a row is a support vector of more than one
 * block or task (format {@link #FORMAT_VERSION}; format {@link #FORMAT_WITHOUT_TABLE} otherwise, as before the table
 * existed) - or a
 * linear model's w, b and solver in the {@code linear} field (with the linear kernel and no
 * blocks). The loss is stored flat: every loss's parameters, the ones it does not have at
 * neutral values (C = 1; lambda = 1, theta = 0, mu = 1).
 */
public final class ModelCodec {
  /** The newest format: 2, a record with a {@link SupportVectorTable}; 1 is a record without one (as written before it). */
  public static final int FORMAT_VERSION = 2;
  /** The format of a record without a support vector table. */
  public static final int FORMAT_WITHOUT_TABLE = 1;

  static {
    org.sodm.data.AvroClasses.trust(); // the digest encodes the generated record classes
  }

  private ModelCodec() {}

  /**
   * The schemas a model's digest is computed with: ModelRecord's without the fields added after digests existed where the
   * record leaves them null - its trailing fields, supportVectors and (when that is null) multiclass, and the provenance's
   * last field, dimension - so that a model written before them has the digest it was written with. Indexed by
   * {@link #digestIndex}; [0] is the full schema.
   */
  private static final org.apache.avro.Schema[] DIGEST_SCHEMAS = new org.apache.avro.Schema[8];

  static {
    for (int i = 0; i < DIGEST_SCHEMAS.length; i++) DIGEST_SCHEMAS[i] = digestSchema((i & 4) != 0, (i & 2) != 0, (i & 1) != 0);
  }

  private static int digestIndex(boolean noTable, boolean noMulticlass, boolean noDimension) {
    return (noTable ? 4 : 0) | (noMulticlass ? 2 : 0) | (noDimension ? 1 : 0);
  }

  private static org.apache.avro.Schema digestSchema(boolean noTable, boolean noMulticlass, boolean noDimension) {
    org.apache.avro.Schema full = ModelRecord.getClassSchema();
    List<org.apache.avro.Schema.Field> all = full.getFields();
    if (!all.get(all.size() - 1).name().equals("supportVectors") || !all.get(all.size() - 2).name().equals("multiclass")) {
      throw new IllegalStateException("ModelRecord's last fields must be multiclass, supportVectors (the digest relies on it)");
    }
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    for (org.apache.avro.Schema.Field f : all) {
      if (noTable && f.name().equals("supportVectors")) continue;
      if (noMulticlass && f.name().equals("multiclass")) continue;
      org.apache.avro.Schema fs = f.schema();
      if (noDimension && f.name().equals("provenance")) fs = withoutLast(fs, "dimension");
      fields.add(new org.apache.avro.Schema.Field(f, fs));
    }
    return org.apache.avro.Schema.createRecord(full.getName(), full.getDoc(), full.getNamespace(), false, fields);
  }

  private static org.apache.avro.Schema withoutLast(org.apache.avro.Schema record, String name) {
    if (!record.getFields().get(record.getFields().size() - 1).name().equals(name)) {
      throw new IllegalStateException(record.getName() + "'s last field must be " + name + " (the digest relies on it)");
    }
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    for (org.apache.avro.Schema.Field f : record.getFields()) {
      if (!f.name().equals(name)) fields.add(new org.apache.avro.Schema.Field(f, f.schema()));
    }
    return org.apache.avro.Schema.createRecord(record.getName(), record.getDoc(), record.getNamespace(), false, fields);
  }

  public static ModelRecord toAvro(Model m) {
    KernelSpec ks = m.kernelSpec();
    KernelRecord k = new KernelRecord(ks.type().id(), ks.gamma(), ks.coef0(), ks.degree());
    List<BlockModel> bm = new ArrayList<>();
    LinearModelRecord lin = null;
    LocalRouting lr = null;
    org.sodm.avro.MulticlassRecord mc = null;
    SupportVectorTable table = tableToAvro(sharedVectors(m));
    if (m instanceof MulticlassModel mm) {
      mc = multiclassToAvro(mm, table == null);
    } else if (m instanceof LinearModel l) {
      lin = linearToAvro(l);
    } else {
      KernelModel km = (KernelModel) m;
      bm = blocksToAvro(km, table == null);
      if (km.routing() != null) lr = routingToAvro(km.routing());
    }
    ModelRecord r = new ModelRecord(table == null ? FORMAT_WITHOUT_TABLE : FORMAT_VERSION, k, lossToAvro(m.loss()), m.labels().toAvro(),
        m.scaler() == null ? null : m.scaler().toAvro(), "mean", bm, lin, m.provenance(), lr, null, mc, table);
    r.setDigest(digest(r));
    return r;
  }

  /**
   * Every support vector of the model by row id when some row is a support vector of more than one block or task (a
   * multi-class model: a row is in K - 1 one-vs-one tasks), else null: then the blocks keep their vectors (format 1).
   * Also null when an id is negative or one id has two different vectors (no table can hold them).
   */
  static java.util.TreeMap<Long, SparseVector> sharedVectors(Model m) {
    List<KernelModel> parts = new ArrayList<>();
    if (m instanceof MulticlassModel mm) {
      for (int t = 0; t < mm.plan().tasks(); t++) if (mm.subModel(t) instanceof KernelModel km) parts.add(km);
    } else if (m instanceof KernelModel km) {
      parts.add(km);
    }
    java.util.HashMap<Long, SparseVector> byId = new java.util.HashMap<>();
    long entries = 0;
    for (KernelModel km : parts) {
      for (int b = 0; b < km.blockCount(); b++) {
        KernelExpansion e = km.block(b);
        for (int i = 0; i < e.size(); i++) {
          long id = km.supportVectorId(b, i);
          if (id < 0) return null;
          SparseVector v = e.supportVector(i);
          SparseVector had = byId.putIfAbsent(id, v);
          if (had != null && had != v && !had.equals(v)) return null;
          entries++;
        }
      }
    }
    return entries > byId.size() ? new java.util.TreeMap<>(byId) : null;
  }

  private static SupportVectorTable tableToAvro(java.util.TreeMap<Long, SparseVector> vectors) {
    if (vectors == null) return null;
    List<Long> ids = new ArrayList<>(vectors.size());
    List<Features> vec = new ArrayList<>(vectors.size());
    vectors.forEach((id, v) -> {
      ids.add(id);
      vec.add(Instances.toAvro(v));
    });
    return new SupportVectorTable(ids, vec);
  }

  /** The support vectors of a format 2 record's table: ids strictly ascending, each id's vector. */
  private record Table(long[] ids, SparseVector[] vectors) {
    static Table of(SupportVectorTable t) {
      if (t == null) return null;
      int n = t.getIds().size();
      if (t.getVectors().size() != n) {
        throw new IllegalArgumentException("the model's support vector table has " + n + " ids and " + t.getVectors().size() + " vectors");
      }
      long[] ids = new long[n];
      SparseVector[] v = new SparseVector[n];
      for (int i = 0; i < n; i++) {
        ids[i] = t.getIds().get(i);
        if (i > 0 && ids[i] <= ids[i - 1]) {
          throw new IllegalArgumentException("the model's support vector table is not in ascending id order at entry " + i + " (id "
              + ids[i] + " after " + ids[i - 1] + ")");
        }
        v[i] = Instances.features(t.getVectors().get(i));
      }
      return new Table(ids, v);
    }

    SparseVector get(long id, int block) {
      int at = java.util.Arrays.binarySearch(ids, id);
      if (at < 0) throw new IllegalArgumentException("support vector id " + id + " of block " + block + " is not in the model's support vector table");
      return vectors[at];
    }
  }

  private static List<BlockModel> blocksToAvro(KernelModel km, boolean withVectors) {
    List<BlockModel> blocks = new ArrayList<>();
    for (int b = 0; b < km.blockCount(); b++) {
      KernelExpansion e = km.block(b);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < e.size(); i++) ids.add(km.supportVectorId(b, i));
      blocks.add(blockToAvro(km.blockId(b), e, ids, withVectors));
    }
    return blocks;
  }

  /**
   * SHA-256 (hex) of {@code r}'s Avro binary encoding with the digest field null and the
   * provenance parameters in key order (the encoding of a map follows its iteration order, which
   * a reader does not keep).
   */
  public static String digest(ModelRecord r) {
    // a shallow copy (the builder's deep copy boxed and copied every weight again: 0.12 s for 2M weights); only the copy's
    // digest and provenance are replaced below
    ModelRecord c = new ModelRecord();
    for (int i = 0; i < ModelRecord.getClassSchema().getFields().size(); i++) c.put(i, r.get(i));
    c.setDigest(null);
    if (c.getProvenance() != null && c.getProvenance().getParameters() != null) {
      java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
      c.getProvenance().getParameters().forEach((key, v) -> sorted.put(key.toString(), v == null ? null : v.toString()));
      org.sodm.avro.Provenance p = org.sodm.avro.Provenance.newBuilder(c.getProvenance()).build();
      p.setParameters(new java.util.LinkedHashMap<>(sorted));
      c.setProvenance(p);
    }
    try {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      org.apache.avro.io.BinaryEncoder enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
      // a record without the fields added since digests exist encodes with the schema before them: the same bytes, the same digest
      boolean noTable = c.getSupportVectors() == null;
      org.apache.avro.Schema schema = DIGEST_SCHEMAS[digestIndex(noTable, noTable && c.getMulticlass() == null,
          c.getProvenance() == null || c.getProvenance().getDimension() == null)];
      new org.apache.avro.specific.SpecificDatumWriter<ModelRecord>(schema).write(c, enc);
      enc.flush();
      byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(out.toByteArray());
      return java.util.HexFormat.of().formatHex(h);
    } catch (java.io.IOException | java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot digest a model record", e);
    }
  }

  /**
   * Returns {@code r} when its digest matches its content (or it has none: a model written
   * before digests existed); otherwise fails saying the model was changed after it was written.
   */
  public static ModelRecord verify(ModelRecord r) {
    if (r.getDigest() == null) return r;
    String want = r.getDigest().toString();
    String got = digest(r);
    if (!want.equals(got)) {
      throw new IllegalArgumentException("the model is corrupt: its content does not match the SHA-256 digest written with it ("
          + want.substring(0, 12) + "... stored, " + got.substring(0, 12) + "... computed); it was changed after training. "
          + "Train it again or restore it from a copy");
    }
    return r;
  }

  /** The model of {@code r}, its digest verified first ({@link #verify}). */
  public static Model fromAvro(ModelRecord r) {
    return fromVerified(verify(r));
  }

  /**
   * The model of a record whose digest has been verified already: by this process, or by the
   * driver of the job whose task reads it (SHA-256 of a model of thousands of support vectors
   * costs a cold JVM 0.05-0.2 s, once per read).
   */
  public static Model fromVerified(ModelRecord r) {
    if (r.getFormatVersion() != FORMAT_VERSION && r.getFormatVersion() != FORMAT_WITHOUT_TABLE) {
      throw new IllegalArgumentException("model format version " + r.getFormatVersion()
          + " is not supported (this sodm reads " + FORMAT_WITHOUT_TABLE + " and " + FORMAT_VERSION + ")");
    }
    if ((r.getFormatVersion() == FORMAT_VERSION) != (r.getSupportVectors() != null)) {
      throw new IllegalArgumentException("a model of format " + r.getFormatVersion() + (r.getSupportVectors() == null
          ? " without" : " with") + " a support vector table (format " + FORMAT_VERSION + " has one, " + FORMAT_WITHOUT_TABLE + " not)");
    }
    Table table = Table.of(r.getSupportVectors());
    if (!"mean".equals(r.getCombine())) throw new IllegalArgumentException("unknown block combination '" + r.getCombine() + "'");
    KernelSpec ks = kernelOf(r.getKernel());
    Kernel kernel = ks.create();
    Loss loss = lossFromAvro(r.getLoss());
    LabelMap labels = LabelMap.fromAvro(r.getLabels());
    Scaler scaler = r.getScaler() == null ? null : Scaler.fromAvro(r.getScaler());
    if (r.getMulticlass() != null) return multiclassFromAvro(r.getMulticlass(), ks, kernel, loss, scaler, r.getProvenance(), table);
    if (r.getLinear() != null) return linearFromAvro(r.getLinear(), loss, labels, scaler, r.getProvenance());
    int nb = r.getBlocks().size();
    int[] ids = new int[nb];
    long[][] sv = new long[nb][];
    KernelExpansion[] ex = new KernelExpansion[nb];
    for (int b = 0; b < nb; b++) {
      BlockModel m = r.getBlocks().get(b);
      ids[b] = m.getBlock();
      sv[b] = m.getIds().stream().mapToLong(Long::longValue).toArray();
      ex[b] = expansionFromAvro(kernel, m, table);
    }
    Routing routing = r.getRouting() == null ? null : routingFromAvro(r.getRouting(), kernel);
    return new KernelModel(ks, loss, labels, scaler, ids, sv, ex, r.getProvenance(), routing);
  }

  private static LinearModelRecord linearToAvro(LinearModel l) {
    List<Double> w = new ArrayList<>();
    for (double v : l.w()) w.add(v);
    return new LinearModelRecord(w, l.bias(), l.solver());
  }

  private static LinearModel linearFromAvro(LinearModelRecord lin, Loss loss, LabelMap labels, Scaler scaler,
      org.sodm.avro.Provenance provenance) {
    double[] w = new double[lin.getW().size()];
    for (int f = 0; f < w.length; f++) w[f] = lin.getW().get(f);
    return new LinearModel(loss, labels, scaler, w, lin.getBias(), lin.getSolver(), provenance);
  }

  private static org.sodm.avro.MulticlassRecord multiclassToAvro(MulticlassModel mm, boolean withVectors) {
    List<org.sodm.avro.TaskModel> tasks = new ArrayList<>();
    Subproblems plan = mm.plan();
    for (int t = 0; t < plan.tasks(); t++) {
      Model sm = mm.subModel(t);
      List<BlockModel> blocks = new ArrayList<>();
      LinearModelRecord lin = null;
      if (sm instanceof LinearModel l) {
        lin = linearToAvro(l);
      } else {
        blocks = blocksToAvro((KernelModel) sm, withVectors);
      }
      Platt p = mm.platt(t);
      tasks.add(new org.sodm.avro.TaskModel(plan.negativeClass(t), plan.positiveClass(t), blocks, lin, p == null ? null : p.a(),
          p == null ? null : p.b()));
    }
    return new org.sodm.avro.MulticlassRecord(plan.scheme().id(), new ArrayList<>(mm.classes()), tasks);
  }

  /** The label map of task t: its two classes, or (ovr) "not c" and c. */
  public static LabelMap taskLabels(List<String> classes, Subproblems plan, int t) {
    int n = plan.negativeClass(t);
    String pos = classes.get(plan.positiveClass(t));
    return new LabelMap(n >= 0 ? classes.get(n) : "not " + pos, pos);
  }

  private static MulticlassModel multiclassFromAvro(org.sodm.avro.MulticlassRecord mc, KernelSpec ks, Kernel kernel, Loss loss,
      Scaler scaler, org.sodm.avro.Provenance provenance, Table table) {
    List<String> classes = new ArrayList<>();
    for (Object c : mc.getClasses()) classes.add(c.toString());
    Subproblems plan = new Subproblems(classes.size(), Subproblems.Scheme.parse(mc.getScheme().toString()));
    if (mc.getTasks().size() != plan.tasks()) {
      throw new IllegalArgumentException("the model has " + mc.getTasks().size() + " tasks; " + plan.scheme().id() + " over "
          + classes.size() + " classes has " + plan.tasks());
    }
    Model[] sub = new Model[plan.tasks()];
    Platt[] platt = null;
    for (int t = 0; t < sub.length; t++) {
      org.sodm.avro.TaskModel tm = mc.getTasks().get(t);
      if (tm.getNegative() != plan.negativeClass(t) || tm.getPositive() != plan.positiveClass(t)) {
        throw new IllegalArgumentException("task " + t + " of the model is (" + tm.getNegative() + ", " + tm.getPositive()
            + "), expected (" + plan.negativeClass(t) + ", " + plan.positiveClass(t) + ")");
      }
      LabelMap lm = taskLabels(classes, plan, t);
      if (tm.getLinear() != null) {
        sub[t] = linearFromAvro(tm.getLinear(), loss, lm, scaler, null);
      } else {
        int nb = tm.getBlocks().size();
        int[] ids = new int[nb];
        long[][] sv = new long[nb][];
        KernelExpansion[] ex = new KernelExpansion[nb];
        for (int b = 0; b < nb; b++) {
          BlockModel m = tm.getBlocks().get(b);
          ids[b] = m.getBlock();
          sv[b] = m.getIds().stream().mapToLong(Long::longValue).toArray();
          ex[b] = expansionFromAvro(kernel, m, table);
        }
        sub[t] = new KernelModel(ks, loss, lm, scaler, ids, sv, ex, null);
      }
      if (tm.getPlattA() != null) {
        if (platt == null) platt = new Platt[sub.length];
        platt[t] = new Platt(tm.getPlattA(), tm.getPlattB());
      }
    }
    if (platt != null) {
      for (Platt p : platt) if (p == null) throw new IllegalArgumentException("some tasks of the model have a sigmoid and some not");
    }
    return new MulticlassModel(ks, loss, scaler, classes, plan, sub, platt, provenance);
  }

  public static KernelSpec kernelOf(KernelRecord k) {
    return new KernelSpec(KernelSpec.Type.parse(k.getType()), k.getGamma(), k.getCoef0(), k.getDegree());
  }

  static LossRecord lossToAvro(Loss loss) {
    double c = 1;
    double lambda = 1;
    double theta = 0;
    double mu = 1;
    if (loss instanceof Loss.Odm o) {
      lambda = o.lambda();
      theta = o.theta();
      mu = o.mu();
    } else if (loss instanceof Loss.Hinge h) {
      c = h.c();
    } else if (loss instanceof Loss.SquaredHinge s) {
      c = s.c();
    } else if (loss instanceof Loss.Logistic l) {
      c = l.c();
    }
    // nu-SVM keeps its nu in the c field (the schema, and so the digests of earlier models, unchanged)
    if (loss instanceof Loss.Nu n) c = n.nu();
    return new LossRecord(loss.id(), c, lambda, theta, mu, loss.bias(), loss.weights().positive(),
        loss.weights().negative());
  }

  static Loss lossFromAvro(LossRecord l) {
    boolean nu = Loss.canonicalId(l.getType()).equals("nu");
    return Loss.of(l.getType(), nu ? 1 : l.getC(), l.getLambda(), l.getTheta(), l.getMu(), nu ? l.getC() : Double.NaN, l.getBias(),
        l.getPositiveWeight(), l.getNegativeWeight());
  }

  /** @param withVectors whether the block holds its vectors (format 1), or only ids and coefficients (the table has them) */
  private static BlockModel blockToAvro(int block, KernelExpansion e, List<Long> ids, boolean withVectors) {
    List<Double> coef = new ArrayList<>();
    List<Features> vec = new ArrayList<>();
    for (int i = 0; i < e.size(); i++) {
      coef.add(e.coef(i));
      if (withVectors) vec.add(Instances.toAvro(e.supportVector(i)));
    }
    return new BlockModel(block, e.bias(), ids, coef, vec);
  }

  /** A block's expansion: its own vectors, or (format 2: none of its own) its ids' vectors from the table. */
  private static KernelExpansion expansionFromAvro(Kernel kernel, BlockModel m, Table table) {
    int n = m.getCoef().size();
    boolean own = !m.getVectors().isEmpty() || n == 0;
    if (own ? m.getVectors().size() != n : table == null || m.getIds().size() != n) {
      throw new IllegalArgumentException("block " + m.getBlock() + " of the model has " + n + " coefficients, " + m.getIds().size()
          + " ids and " + m.getVectors().size() + " vectors" + (own || table != null ? "" : " and the model no support vector table"));
    }
    SparseVector[] v = new SparseVector[n];
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      c[i] = m.getCoef().get(i);
      v[i] = own ? Instances.features(m.getVectors().get(i)) : table.get(m.getIds().get(i), m.getBlock());
    }
    return new KernelExpansion(kernel, v, c, m.getBias());
  }

  private static LocalRouting routingToAvro(Routing routing) {
    List<Features> sample = new ArrayList<>();
    for (SparseVector v : routing.kmeans().samplePoints()) sample.add(Instances.toAvro(v));
    List<Integer> mem = new ArrayList<>();
    for (int m : routing.kmeans().memberships()) mem.add(m);
    List<Integer> cb = new ArrayList<>();
    for (int c : routing.clusterBlock()) cb.add(c);
    List<BlockModel> local = new ArrayList<>();
    if (routing.local() != null) {
      for (int b = 0; b < routing.local().length; b++) {
        KernelExpansion e = routing.local()[b];
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) ids.add(-1L); // a correction has no instance ids
        local.add(blockToAvro(routing.localIds()[b], e, ids, true));
      }
    }
    return new LocalRouting(sample, mem, routing.kmeans().clusters(), cb, local);
  }

  private static Routing routingFromAvro(LocalRouting lr, Kernel kernel) {
    SparseVector[] sample = new SparseVector[lr.getSample().size()];
    int[] mem = new int[sample.length];
    for (int i = 0; i < sample.length; i++) {
      sample[i] = Instances.features(lr.getSample().get(i));
      mem[i] = lr.getMemberships().get(i);
    }
    int[] cb = lr.getClusterBlock().stream().mapToInt(Integer::intValue).toArray();
    KernelExpansion[] local = null;
    int[] localIds = null;
    if (!lr.getLocal().isEmpty()) {
      local = new KernelExpansion[lr.getLocal().size()];
      localIds = new int[local.length];
      for (int b = 0; b < local.length; b++) {
        local[b] = expansionFromAvro(kernel, lr.getLocal().get(b), null);
        localIds[b] = lr.getLocal().get(b).getBlock();
      }
    }
    return new Routing(KernelKMeans.fromState(sample, mem, lr.getClusters(), kernel, null), cb, local, localIds);
  }
}
