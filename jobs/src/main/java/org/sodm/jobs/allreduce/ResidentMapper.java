package org.sodm.jobs.allreduce;

import org.sodm.jobs.spec.Param;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.WritableRpcEngine;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;

/**
 * A resident map task: one per block file, its rank the block's position in the job's block
 * list. It binds its data port and registers with the tracker, loads its block (the records of
 * its split) once, waits for the topology, connects the {@link SocketAllReduce} and runs the
 * solver's {@link ResidentLoop} from the checkpoint the driver named (if any). A failure is
 * reported to the tracker (and through {@link JobFailure}) before the task fails.
 */
public abstract class ResidentMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, NullWritable, NullWritable> {
  private static final Logger LOG = LoggerFactory.getLogger(ResidentMapper.class);
  private static final Pattern BLOCK = Pattern.compile("block-(\\d+)\\.avro");

  /** Called for each record of this task's block, before {@link #program}. */
  protected abstract void load(TrainRecord r);

  /** Called once before the first {@link #load}. */
  protected void beforeLoad(Configuration conf) {}

  /**
   * Loads this task's block by reading its split directly, without a record per row; false (the default) when it does not
   * (then every record of the split goes to {@link #load}).
   */
  protected boolean loadSplit(Context context) throws IOException {
    return false;
  }

  private boolean freshRecords;

  /** Whether {@link #load} gets a new record per row (a {@link BlockSplit}'s reader), which it may keep without copying. */
  protected final boolean freshRecords() {
    return freshRecords;
  }

  /**
   * The solver for this rank, from the checkpoint's states (null when starting afresh).
   *
   * @param blocks every block of the job (ids, by rank), and their files (empty when the blocks are {@link BlockSplit}s)
   */
  protected abstract ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
      byte[] globalState) throws IOException;

  /** The block id of a block file's name. */
  public static int blockOf(Path p) {
    Matcher m = BLOCK.matcher(p.getName());
    if (!m.matches()) throw new IllegalArgumentException(p + " is not a block file (block-N.avro)");
    return Integer.parseInt(m.group(1));
  }

  @Override
  public void run(Context context) throws IOException, InterruptedException {
    AvroClasses.trust();
    Configuration conf = context.getConfiguration();
    boolean local = Jobs.isLocal(conf);
    String trackerAddress = conf.get(AllReduceKeys.TRACKER, "");
    if (local) LocalTasks.enter(trackerAddress);
    try {
      runTask(context, conf, local);
    } finally {
      if (local) LocalTasks.exit(trackerAddress);
    }
  }

  private void runTask(Context context, Configuration conf, boolean local) throws IOException, InterruptedException {
    int submission = conf.getInt(AllReduceKeys.SUBMISSION, 0);
    List<Integer> blocks = new ArrayList<>();
    for (String b : conf.getTrimmedStrings(AllReduceKeys.BLOCKS)) blocks.add(Integer.parseInt(b));
    List<Path> files = new ArrayList<>();
    int myBlock;
    String source;
    if (context.getInputSplit() instanceof BlockSplit split) {
      freshRecords = true;
      myBlock = split.block();
      source = split.describe();
    } else {
      Path myFile = ((FileSplit) context.getInputSplit()).getPath();
      for (int b : blocks) files.add(new Path(myFile.getParent(), String.format("block-%05d.avro", b)));
      myBlock = blockOf(myFile);
      source = "block file " + myFile.getName();
    }
    int rank = blocks.indexOf(myBlock);
    int size = conf.getInt(AllReduceKeys.SIZE, blocks.size());
    byte[] secret = secret(context, rank, local);
    Configuration rpcConf = new Configuration(conf);
    RPC.setProtocolEngine(rpcConf, TrackerProtocol.class, WritableRpcEngine.class);
    rpcConf.setInt("ipc.client.connect.max.retries", 3);
    rpcConf.setInt("ipc.client.connect.max.retries.on.timeouts", 3);
    rpcConf.setInt("ipc.client.connect.timeout", 5000);
    TrackerProtocol tracker;
    try {
      tracker = RPC.getProxy(TrackerProtocol.class, TrackerProtocol.versionID, Tracker.parse(conf.get(AllReduceKeys.TRACKER)), rpcConf);
    } catch (IOException | RuntimeException e) {
      JobFailure.report(context, "rank " + rank + ": cannot reach the tracker at " + conf.get(AllReduceKeys.TRACKER) + ": " + e);
      throw e;
    }
    SocketAllReduce ar = null;
    try {
      if (rank < 0) throw new IOException(source + ": not in the job's block list " + blocks);
      String host = Param.ALLREDUCE_BIND_HOST.value(conf);
      if (host.isEmpty()) host = local ? "127.0.0.1" : InetAddress.getLocalHost().getHostAddress();
      ServerSocket listener = new ServerSocket();
      listener.bind(new InetSocketAddress(host, 0), 64);
      long[] lastPoll = {System.nanoTime()};
      SocketAllReduce.Ticker ticker = () -> {
        context.progress();
        if (System.nanoTime() - lastPoll[0] > 1_000_000_000L) {
          lastPoll[0] = System.nanoTime();
          String p = tracker.poll(submission);
          if (!p.isEmpty()) throw new Aborted(p);
        }
      };
      ar = new SocketAllReduce(rank, size, secret, listener, conf.getInt(AllReduceKeys.MAX_DOUBLES, 1 << 26),
          (long) (1000 * Param.ALLREDUCE_OPERATION_TIMEOUT.doubleValue(conf)), ticker);
      if (submission == 0 && (rank + ":register").equals(conf.get(AllReduceKeys.TEST_FAIL))) {
        throw new IllegalStateException("planted fault: rank " + rank + " fails before it registers");
      }
      String reg = tracker.register(submission, rank, host, listener.getLocalPort(), Handshake.proof(secret, "register", submission, rank, host,
          listener.getLocalPort()));
      if (!reg.isEmpty()) throw new Aborted("the tracker refused rank " + rank + ": " + reg);
      LOG.info("rank {} of {} ({}) registered, listening at {}:{}", rank, size, source, host, listener.getLocalPort());
      beforeLoad(conf);
      if (!loadSplit(context)) {
        while (context.nextKeyValue()) load(context.getCurrentKey().datum());
      }
      List<InetSocketAddress> topology = new ArrayList<>();
      while (true) {
        String t = tracker.topology(submission);
        if (t.startsWith("ABORT")) throw new Aborted(t);
        if (!t.isEmpty()) {
          for (String a : t.split(",")) topology.add(Tracker.parse(a));
          break;
        }
        context.progress();
        Thread.sleep(50);
      }
      ar.connect(topology);
      LOG.info("rank {}: connected to its tree neighbours", rank);
      byte[] rankState = null;
      byte[] globalState = null;
      int start = 0;
      String resume = conf.get(AllReduceKeys.RESUME);
      if (resume != null) {
        Path dir = new Path(resume);
        start = conf.getInt(AllReduceKeys.RESUME_NEXT, 0);
        rankState = FsCheckpoints.read(conf, dir, FsCheckpoints.rankFile(rank));
        globalState = FsCheckpoints.read(conf, dir, FsCheckpoints.GLOBAL);
        if (globalState == null) throw new IOException("checkpoint " + dir + " has no " + FsCheckpoints.GLOBAL);
      }
      long built = System.nanoTime();
      ResidentLoop.Program program = program(context, rank, blocks, files, rankState, globalState);
      LOG.debug("rank {}: program built from its rows in {} ms", rank, (System.nanoTime() - built) / 1_000_000);
      ResidentLoop.Policy policy = policy(conf, submission);
      FsCheckpoints ckpt = new FsCheckpoints(conf, new Path(conf.get(AllReduceKeys.CHECKPOINT_DIR)));
      ResidentLoop.run(program, start, ar, policy, ckpt, (it, values) -> {
        String r = tracker.report(submission, it, values, Handshake.proof(secret, "report", submission, it));
        if (!r.isEmpty()) throw new Aborted(r);
      });
      context.getCounter("sodm.allreduce", "refused connections").increment(ar.refused());
    } catch (Exception | Error e) {
      boolean secondary = e instanceof SocketAllReduce.PeerLost || e instanceof Aborted;
      String msg = "rank " + rank + " (" + source + "): " + (e.getMessage() == null ? e.toString() : e.getMessage());
      try {
        tracker.fail(submission, rank, msg, secondary, Handshake.proof(secret, "fail", submission, rank));
      } catch (RuntimeException re) {
        // the tracker is gone: the driver ended
      }
      if (!secondary) JobFailure.report(context, msg);
      throw e;
    } finally {
      if (ar != null) ar.close();
      RPC.stopProxy(tracker);
    }
  }

  /**
   * The threads a task's {@link org.sodm.allreduce.TaskPrograms} may run its programs on at once (one-rank runs only): in local
   * mode the machine's cores (the job runs in this JVM and has one task), on a cluster the container's
   * {@code mapreduce.map.cpu.vcores} (1 unless the job asks for more).
   */
  public static int programThreads(Configuration conf) {
    return Jobs.isLocal(conf) ? Runtime.getRuntime().availableProcessors() : Math.max(1, conf.getInt("mapreduce.map.cpu.vcores", 1));
  }

  /** Bytes a program's iteration allocates per row of its block while it runs (a BQO block solve's: about 92). */
  public static final long ROUND_BYTES_PER_ROW = 96;

  /**
   * {@link #programThreads(Configuration)}, fewer when the heap's headroom (taken once the block is loaded) does not hold half
   * again the memory of that many programs iterating at once ({@code rows} rows each, {@link #ROUND_BYTES_PER_ROW}): a run
   * that fits on one thread is not pushed out of memory by its threads. The models do not depend on the count.
   */
  public static int programThreads(Configuration conf, long rows) {
    int t = programThreads(conf);
    if (t <= 1) return t;
    Runtime rt = Runtime.getRuntime();
    long headroom = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    long perProgram = Math.max(1, rows * ROUND_BYTES_PER_ROW);
    return (int) Math.max(1, Math.min(t, 1 + headroom / (2 * perProgram)));
  }

  /** The job's secret: from the credentials, or in local mode from {@link LocalSecrets} (LocalJobRunner's credentials race). */
  private static byte[] secret(Context context, int rank, boolean local) throws IOException {
    byte[] secret = context.getCredentials().getSecretKey(AllReduceKeys.SECRET_ALIAS);
    if (secret == null && local) {
      secret = LocalSecrets.get(context.getConfiguration().get(AllReduceKeys.TRACKER));
      LOG.info("rank {}: the secret is not in this task's credentials (LocalJobRunner sets them after starting the job); taken "
          + "from the driver in this JVM", rank);
    }
    if (secret == null) {
      String msg = "rank " + rank + ": the job's credentials carry no AllReduce secret (" + AllReduceKeys.SECRET_ALIAS + ")";
      JobFailure.report(context, msg);
      throw new IOException(msg);
    }
    return secret;
  }

  private static ResidentLoop.Policy policy(Configuration conf, int submission) {
    int failRank = -1;
    int failIteration = -1;
    String f = conf.get(AllReduceKeys.TEST_FAIL);
    if (f != null && submission == 0 && !f.endsWith(":register")) {
      String[] p = f.split(":");
      failRank = Integer.parseInt(p[0].trim());
      failIteration = Integer.parseInt(p[1].trim());
    }
    return new ResidentLoop.Policy((int) Param.ALLREDUCE_CHECKPOINT_ITERATIONS.longValue(conf), Param.ALLREDUCE_CHECKPOINT_SECONDS.doubleValue(conf),
        failRank, failIteration);
  }

  /** The tracker told the task to stop. */
  static final class Aborted extends IOException {
    Aborted(String msg) {
      super(msg);
    }
  }
}
