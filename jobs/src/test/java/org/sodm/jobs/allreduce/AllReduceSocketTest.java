package org.sodm.jobs.allreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.WritableRpcEngine;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.ReduceTree;

/** The socket AllReduce against the in-process one (bit for bit), its handshake, and the tracker's IPC. */
class AllReduceSocketTest {
  static double[][] random(long seed, int k, int m) {
    Random r = new Random(seed);
    double[][] v = new double[k][m];
    for (double[] a : v) for (int i = 0; i < m; i++) a[i] = r.nextGaussian() * Math.pow(10, r.nextInt(17) - 8);
    return v;
  }

  /** K ranks over loopback sockets, each running {@code body}; intruders hit every port before the ranks connect. */
  static List<double[][]> runSockets(int k, byte[] secret, boolean intrude, RankBody body) throws Exception {
    List<ServerSocket> listeners = new ArrayList<>();
    List<InetSocketAddress> topology = new ArrayList<>();
    for (int r = 0; r < k; r++) {
      ServerSocket s = new ServerSocket();
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      listeners.add(s);
      topology.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
    }
    List<SocketAllReduce> ars = new ArrayList<>();
    for (int r = 0; r < k; r++) ars.add(new SocketAllReduce(r, k, secret, listeners.get(r), 1000, 20_000, () -> {}));
    if (intrude) {
      for (InetSocketAddress a : topology) {
        try (Socket s = new Socket()) {
          s.connect(a);
          s.setSoTimeout(5000);
          assertThrows(IOException.class, () -> Handshake.connect(s, Handshake.newSecret(), 1));
        }
        try (Socket s = new Socket()) {
          s.connect(a);
          OutputStream out = s.getOutputStream();
          out.write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          s.setSoTimeout(5000);
          while (s.getInputStream().read() >= 0) {
            // until refused
          }
        } catch (IOException e) {
          // reset by the refusing side: refused as well
        }
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(k);
    try {
      List<Future<double[][]>> fs = new ArrayList<>();
      for (int r = 0; r < k; r++) {
        SocketAllReduce ar = ars.get(r);
        fs.add(pool.submit(() -> {
          try (ar) {
            ar.connect(topology);
            return body.run(ar);
          }
        }));
      }
      List<double[][]> out = new ArrayList<>();
      for (Future<double[][]> f : fs) out.add(f.get());
      if (intrude) {
        for (SocketAllReduce ar : ars) assertEquals(2, ar.refused(), "refused connections of rank " + ar.rank());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  interface RankBody {
    double[][] run(org.sodm.allreduce.AllReduce ar) throws Exception;
  }

  @Test
  void socketsAndThreadsGiveBitIdenticalResults() throws Exception {
    byte[] secret = Handshake.newSecret();
    for (int k = 1; k <= 5; k++) {
      double[][] v = random(k, k, 101);
      double[][] u = random(50 + k, k, 7);
      RankBody body = ar -> new double[][] {ar.sum(v[ar.rank()]), ar.max(u[ar.rank()]), ar.broadcast(ar.rank() == 0 ? u[0] : null),
          {ar.sum(v[ar.rank()][0])}, ar.sum(v[ar.rank()])};
      List<double[][]> sockets = runSockets(k, secret, k == 5, body);
      List<double[][]> threads = InProcessAllReduce.run(k, body::run);
      double[] tree = ReduceTree.reduce(ReduceTree.Op.SUM, v);
      for (int r = 0; r < k; r++) {
        for (int op = 0; op < 5; op++) assertArrayEquals(threads.get(0)[op], sockets.get(r)[op], "K=" + k + " rank " + r + " op " + op);
        assertArrayEquals(tree, sockets.get(r)[0]);
      }
      if (k >= 4) { // K <= 3: the tree order is the sequential one
        // the tree order is not the sequential order: a transport that summed sequentially would differ somewhere
        double[] seq = v[0].clone();
        for (int r = 1; r < k; r++) for (int i = 0; i < seq.length; i++) seq[i] += v[r][i];
        boolean differs = false;
        for (int i = 0; i < seq.length; i++) differs |= seq[i] != tree[i];
        assertTrue(differs, "K=" + k + ": test vectors too tame to tell the orders apart");
      }
    }
  }

  @Test
  void wrongSecretsAndOversizedFramesAreRefused() throws Exception {
    // two ranks with different secrets never connect
    IOException e = assertThrows(java.util.concurrent.ExecutionException.class, () -> {
      List<ServerSocket> ls = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress("127.0.0.1", 0));
        ls.add(s);
      }
      List<InetSocketAddress> topo = List.of(new InetSocketAddress("127.0.0.1", ls.get(0).getLocalPort()),
          new InetSocketAddress("127.0.0.1", ls.get(1).getLocalPort()));
      SocketAllReduce a = new SocketAllReduce(0, 2, Handshake.newSecret(), ls.get(0), 10, 3000, () -> {});
      SocketAllReduce b = new SocketAllReduce(1, 2, Handshake.newSecret(), ls.get(1), 10, 3000, () -> {});
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try (a; b) {
        Future<?> fb = pool.submit(() -> {
          b.connect(topo);
          return null;
        });
        fb.get();
      } finally {
        pool.shutdownNow();
      }
    }).getCause() instanceof IOException io ? io : null;
    assertTrue(e != null && e.getMessage().contains("could not authenticate"), String.valueOf(e));
    // a frame above the bound is refused by the sender's own check before it reaches the wire
    byte[] secret = Handshake.newSecret();
    Exception big = assertThrows(java.util.concurrent.ExecutionException.class, () -> runSockets(2, secret, false,
        ar -> new double[][] {ar.sum(new double[2000])}));
    assertTrue(big.getCause().getMessage().contains("exceeds the bound"), big.getCause().getMessage());
  }

  @Test
  void trackerRefusesCallsWithoutTheSecretAndGivesTheTopology() throws Exception {
    byte[] secret = Handshake.newSecret();
    Configuration conf = new Configuration(false);
    try (Tracker t = new Tracker(conf, "127.0.0.1", secret)) {
      t.begin(0, 2, false);
      Configuration c = new Configuration(false);
      RPC.setProtocolEngine(c, TrackerProtocol.class, WritableRpcEngine.class);
      TrackerProtocol p = RPC.getProxy(TrackerProtocol.class, TrackerProtocol.versionID, Tracker.parse(t.address()), c);
      try {
        assertEquals("refused: wrong proof", p.register(0, 0, "127.0.0.1", 1, "0000"));
        assertEquals("refused: wrong proof", p.register(0, 0, "127.0.0.1", 1, Handshake.proof(Handshake.newSecret(), "register", 0, 0,
            "127.0.0.1", 1)));
        assertEquals(2, t.refusedCalls());
        assertEquals("", p.register(0, 0, "127.0.0.1", 1, Handshake.proof(secret, "register", 0, 0, "127.0.0.1", 1)));
        assertEquals("", p.topology(0));
        assertEquals("", p.register(0, 1, "127.0.0.1", 2, Handshake.proof(secret, "register", 0, 1, "127.0.0.1", 2)));
        assertEquals("127.0.0.1:1,127.0.0.1:2", p.topology(0));
        assertEquals("", p.report(0, 0, new double[] {1, 2}, Handshake.proof(secret, "report", 0, 0)));
        assertArrayEquals(new double[] {1, 2}, t.drain().get(0).values());
        // a second registration of a rank (a retried task) aborts the submission
        assertTrue(p.register(0, 1, "127.0.0.1", 3, Handshake.proof(secret, "register", 0, 1, "127.0.0.1", 3)).startsWith("ABORT"));
        assertTrue(p.poll(0).contains("registered twice"), p.poll(0));
        p.fail(0, 1, "forged", false, "0000");
        assertTrue(t.failure().contains("registered twice"), t.failure());
      } finally {
        RPC.stopProxy(p);
      }
    }
  }
}
