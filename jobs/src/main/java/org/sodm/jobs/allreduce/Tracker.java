package org.sodm.jobs.allreduce;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtocolSignature;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.WritableRpcEngine;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of the resident job: a Hadoop IPC server ({@link TrackerProtocol},
 * {@link WritableRpcEngine}) where the K tasks register their data ports and learn the
 * topology, rank 0 reports each iteration's values, and failing tasks leave their reason. One
 * tracker serves every submission of a run ({@link #begin} starts the next); a re-registration
 * or a call of an earlier submission is refused. A reason for aborting ({@link #abort}) is
 * returned to every later poll, so the tasks stop.
 */
public final class Tracker implements TrackerProtocol, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Tracker.class);

  /** A value report from rank 0. */
  public record Report(int submission, int iteration, double[] values) {}

  private final byte[] secret;
  private final RPC.Server server;
  private final InetSocketAddress address;
  private final ConcurrentLinkedQueue<Report> reports = new ConcurrentLinkedQueue<>();
  private int submission = -1;
  private int expected;
  private String[] addresses;
  private int registered;
  private String abort;
  private String primaryFailure;
  private String secondaryFailure;
  private int refusedCalls;
  private boolean intrude;

  /** Starts the IPC server on {@code host}, port 0. */
  public Tracker(Configuration base, String host, byte[] secret) throws IOException {
    this.secret = secret.clone();
    Configuration conf = new Configuration(base);
    RPC.setProtocolEngine(conf, TrackerProtocol.class, WritableRpcEngine.class);
    server = new RPC.Builder(conf).setProtocol(TrackerProtocol.class).setInstance(this).setBindAddress(host).setPort(0)
        .setNumHandlers(4).setVerbose(false).build();
    server.start();
    address = NetUtils.getConnectAddress(server);
  }

  /** host:port for the tasks. */
  public String address() {
    return address.getHostString() + ":" + address.getPort();
  }

  /** Starts submission {@code s}, expecting {@code k} ranks; forgets the previous one's registrations. */
  public synchronized void begin(int s, int k, boolean intrudeOnTopology) {
    submission = s;
    expected = k;
    addresses = new String[k];
    registered = 0;
    abort = null;
    primaryFailure = null;
    secondaryFailure = null;
    intrude = intrudeOnTopology;
  }

  public synchronized int registered() {
    return registered;
  }

  /** The ranks that have not registered (for the rendezvous message). */
  public synchronized List<Integer> missing() {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < expected; r++) if (addresses[r] == null) out.add(r);
    return out;
  }

  public synchronized int refusedCalls() {
    return refusedCalls;
  }

  /** Tells every task of the current submission to stop, with this reason (the first reason wins). */
  public synchronized void abort(String reason) {
    if (abort == null) abort = reason;
  }

  /** Why the current submission failed, as the tasks reported it: the first primary failure, else a secondary one, else the abort. */
  public synchronized String failure() {
    if (primaryFailure != null) return primaryFailure;
    if (secondaryFailure != null) return secondaryFailure;
    return abort;
  }

  public List<Report> drain() {
    List<Report> out = new ArrayList<>();
    for (Report r; (r = reports.poll()) != null; ) out.add(r);
    return out;
  }

  private synchronized boolean check(boolean ok, String call) {
    if (!ok) {
      refusedCalls++;
      LOG.warn("tracker: refused a {} call with a wrong proof (not this job's secret)", call);
    }
    return ok;
  }

  @Override
  public String register(int s, int rank, String host, int port, String proof) {
    List<InetSocketAddress> intrudeOn = null;
    synchronized (this) {
      if (!check(Handshake.verify(secret, proof, "register", s, rank, host, port), "register")) return "refused: wrong proof";
      if (s != submission) return "refused: submission " + s + " is over (now " + submission + ")";
      if (rank < 0 || rank >= expected) return "refused: rank " + rank + " out of [0, " + expected + ")";
      if (addresses[rank] != null) {
        abort("rank " + rank + " registered twice (a task attempt was retried: the run restarts from its checkpoint)");
        return "ABORT " + abort;
      }
      addresses[rank] = host + ":" + port;
      registered++;
      if (registered == expected && intrude) {
        intrudeOn = new ArrayList<>();
        for (String a : addresses) intrudeOn.add(parse(a));
      }
    }
    if (intrudeOn != null) {
      List<InetSocketAddress> targets = intrudeOn;
      Thread t = new Thread(() -> intrude(targets), "allreduce-test-intruder");
      t.setDaemon(true);
      t.start();
    }
    return "";
  }

  @Override
  public synchronized String topology(int s) {
    if (abort != null) return "ABORT " + abort;
    if (s != submission) return "ABORT submission " + s + " is over";
    if (registered < expected) return "";
    return String.join(",", addresses);
  }

  @Override
  public String report(int s, int t, double[] values, String proof) {
    if (!check(Handshake.verify(secret, proof, "report", s, t), "report")) return "refused: wrong proof";
    reports.add(new Report(s, t, values.clone()));
    return poll(s);
  }

  @Override
  public synchronized String poll(int s) {
    if (abort != null) return "ABORT " + abort;
    if (s != submission) return "ABORT submission " + s + " is over";
    return "";
  }

  @Override
  public synchronized void fail(int s, int rank, String reason, boolean secondary, String proof) {
    if (!check(Handshake.verify(secret, proof, "fail", s, rank), "fail") || s != submission) return;
    LOG.info("tracker: rank {} failed: {}", rank, reason);
    if (secondary) {
      if (secondaryFailure == null) secondaryFailure = reason;
    } else if (primaryFailure == null) {
      primaryFailure = reason;
    }
    abort(reason);
  }

  @Override
  public long getProtocolVersion(String protocol, long clientVersion) {
    return versionID;
  }

  @Override
  public ProtocolSignature getProtocolSignature(String protocol, long clientVersion, int clientMethodsHash) throws IOException {
    return ProtocolSignature.getProtocolSignature(this, protocol, clientVersion, clientMethodsHash);
  }

  static InetSocketAddress parse(String hostPort) {
    int c = hostPort.lastIndexOf(':');
    return new InetSocketAddress(hostPort.substring(0, c), Integer.parseInt(hostPort.substring(c + 1)));
  }

  /** Test only ({@link AllReduceKeys#TEST_INTRUDE}): a wrong secret and a garbage frame at every task's port. */
  private void intrude(List<InetSocketAddress> targets) {
    for (InetSocketAddress a : targets) {
      try (Socket s = new Socket()) {
        s.connect(a, 5000);
        s.setSoTimeout(5000);
        Handshake.connect(s, Handshake.newSecret(), 1);
      } catch (IOException e) {
        LOG.info("tracker (test intruder): wrong-secret connection to {} refused as it should be: {}", a, e.getMessage());
      }
      try (Socket s = new Socket()) {
        s.connect(a, 5000);
        OutputStream out = s.getOutputStream();
        out.write("GET / HTTP/1.0\r\n\r\n garbage garbage garbage".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
        s.setSoTimeout(5000);
        while (s.getInputStream().read() >= 0) {
          // until the task closes it
        }
      } catch (IOException e) {
        LOG.info("tracker (test intruder): garbage connection to {} ended: {}", a, e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    server.stop();
  }
}
