package org.sodm.jobs.allreduce;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ReduceTree;

/**
 * {@link AllReduce} between the map tasks of one job over plain TCP sockets, in
 * {@link ReduceTree}'s tree and combination order (so the results equal the in-process
 * implementation's bit for bit). Each rank listens on its own port; a child connects to its
 * parent and both prove the job's secret ({@link Handshake}). The listener keeps running: any
 * other connection (no secret, garbage, a rank that is not an expected child) is refused,
 * counted and logged, and the run goes on.
 *
 * <p>Data frames: MAGIC, op, sequence number, n, then n doubles (their exact bits); a frame with
 * another op or sequence number than the one expected, or n above the job's bound, fails the
 * run (a peer that authenticated and then breaks the protocol is a bug, not noise). Reads wait
 * in 1 s slices, calling the {@link Ticker} (task progress, the tracker's abort) between slices,
 * and give up after the operation timeout.
 */
public final class SocketAllReduce implements AllReduce, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SocketAllReduce.class);
  private static final int SLICE_MS = 1000;
  private static final int HANDSHAKE_MS = 10_000;
  /** How many times a read polls for bytes before it blocks ({@link #awaitBriefly}). */
  private static final int POLLS = 1 << 12;

  /** Called between read slices; throws to abort. */
  public interface Ticker {
    void tick() throws IOException;
  }

  /** A peer went away (its task failed or was killed): a consequence, not the cause. */
  public static final class PeerLost extends IOException {
    PeerLost(String msg, Throwable cause) {
      super(msg, cause);
    }
  }

  private final int rank;
  private final int size;
  private final byte[] secret;
  private final ServerSocket listener;
  private final int maxDoubles;
  private final long opTimeoutMs;
  private final Ticker ticker;
  private final Socket[] children;
  private final int[] childRanks;
  private Socket parent;
  private long seq;
  private final AtomicInteger refused = new AtomicInteger();
  private volatile boolean closed;
  /** When the operation in progress started (0: none): the watchdog closes the sockets of one stuck in a write. */
  private volatile long opStarted;
  private final Thread acceptor;

  /** Starts accepting on {@code listener} (already bound; its port is what the tracker advertises). */
  public SocketAllReduce(int rank, int size, byte[] secret, ServerSocket listener, int maxDoubles, long opTimeoutMs, Ticker ticker) {
    this.rank = rank;
    this.size = size;
    this.secret = secret.clone();
    this.listener = listener;
    this.maxDoubles = maxDoubles;
    this.opTimeoutMs = opTimeoutMs;
    this.ticker = ticker;
    this.childRanks = ReduceTree.children(rank, size);
    this.children = new Socket[childRanks.length];
    this.acceptor = new Thread(this::acceptLoop, "allreduce-accept-" + rank);
    acceptor.setDaemon(true);
    acceptor.start();
    Thread watchdog = new Thread(this::watch, "allreduce-watchdog-" + rank);
    watchdog.setDaemon(true);
    watchdog.start();
  }

  /**
   * Reads give up by themselves after the operation timeout; a write to a peer that hangs without
   * reading blocks for ever once the buffers are full, so a stuck operation gets its sockets closed.
   */
  private void watch() {
    while (!closed) {
      long started = opStarted;
      if (started != 0 && System.currentTimeMillis() - started > opTimeoutMs + 5000) {
        LOG.error("rank {}: an AllReduce operation is stuck for more than {} s ({}): closing its connections", rank, opTimeoutMs / 1000,
            AllReduceKeys.OPERATION_TIMEOUT);
        close();
        return;
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Connections refused so far. */
  public int refused() {
    return refused.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = listener.accept();
      } catch (IOException e) {
        if (!closed) LOG.warn("rank {}: accept failed: {}", rank, e.toString());
        return;
      }
      Thread h = new Thread(() -> handshake(s), "allreduce-handshake-" + rank);
      h.setDaemon(true);
      h.start();
    }
  }

  private void handshake(Socket s) {
    String from = String.valueOf(s.getRemoteSocketAddress());
    try {
      s.setSoTimeout(HANDSHAKE_MS);
      s.setTcpNoDelay(true);
      int r = Handshake.accept(s, secret);
      synchronized (this) {
        for (int c = 0; c < childRanks.length; c++) {
          if (childRanks[c] == r && children[c] == null && !closed) {
            children[c] = s;
            notifyAll();
            return;
          }
        }
      }
      throw new Handshake.Refused("rank " + r + " is not an expected child of rank " + rank + " (or is already connected)");
    } catch (IOException | RuntimeException e) {
      refused.incrementAndGet();
      LOG.warn("rank {}: refused a connection from {}: {}", rank, from, e.getMessage() == null ? e.toString() : e.getMessage());
      closeQuietly(s);
    }
  }

  /** Connects to the parent and waits for the children (topology: every rank's address, by rank). */
  public void connect(List<InetSocketAddress> topology) throws IOException {
    if (topology.size() != size) throw new IOException("topology has " + topology.size() + " ranks, expected " + size);
    long deadline = System.currentTimeMillis() + opTimeoutMs;
    if (rank > 0) {
      InetSocketAddress a = topology.get(ReduceTree.parent(rank));
      Socket s = new Socket();
      s.connect(a, (int) Math.min(opTimeoutMs, Integer.MAX_VALUE));
      s.setTcpNoDelay(true);
      s.setSoTimeout(HANDSHAKE_MS);
      try {
        Handshake.connect(s, secret, rank);
      } catch (IOException e) {
        closeQuietly(s);
        throw new IOException("rank " + rank + " could not authenticate to its parent rank " + ReduceTree.parent(rank) + " at " + a + ": "
            + e.getMessage(), e);
      }
      s.setSoTimeout(SLICE_MS);
      parent = s;
    }
    synchronized (this) {
      while (true) {
        int missing = 0;
        for (Socket c : children) if (c == null) missing++;
        if (missing == 0) break;
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("rank " + rank + ": " + missing + " child rank(s) did not connect within " + opTimeoutMs / 1000 + " s");
        }
        try {
          wait(SLICE_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for the child ranks", e);
        }
        ticker.tick();
      }
      for (Socket c : children) c.setSoTimeout(SLICE_MS);
    }
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public double[] reduce(ReduceTree.Op op, double[] v) throws IOException {
    opStarted = System.currentTimeMillis();
    try {
      return exchange(op, v);
    } finally {
      opStarted = 0;
    }
  }

  private double[] exchange(ReduceTree.Op op, double[] v) throws IOException {
    long s = ++seq;
    double[] acc = op == ReduceTree.Op.BROADCAST ? (rank == 0 ? v.clone() : null) : v.clone();
    if (acc != null && acc.length > maxDoubles) throw new IllegalArgumentException("AllReduce of " + acc.length + " doubles exceeds the bound " + maxDoubles);
    if (op != ReduceTree.Op.BROADCAST) {
      for (int c = 0; c < children.length; c++) ReduceTree.combine(op, acc, read(children[c], childRanks[c], op, s, acc.length));
      if (rank > 0) write(parent, ReduceTree.parent(rank), op, s, acc);
    }
    if (rank > 0) acc = read(parent, ReduceTree.parent(rank), op, s, op == ReduceTree.Op.BROADCAST ? -1 : acc.length);
    for (int c = 0; c < children.length; c++) write(children[c], childRanks[c], op, s, acc);
    return acc;
  }

  private void write(Socket sock, int peer, ReduceTree.Op op, long s, double[] v) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(20 + 8 * v.length);
    b.putInt(Handshake.MAGIC).putInt(op.ordinal()).putLong(s).putInt(v.length);
    b.asDoubleBuffer().put(v);
    try {
      OutputStream out = sock.getOutputStream();
      out.write(b.array());
      out.flush();
    } catch (SocketException e) {
      throw new PeerLost("rank " + rank + " lost rank " + peer + " (" + e.getMessage() + ")", e);
    }
  }

  private double[] read(Socket sock, int peer, ReduceTree.Op op, long s, int expected) throws IOException {
    long deadline = System.currentTimeMillis() + opTimeoutMs;
    InputStream in = sock.getInputStream();
    ByteBuffer h = ByteBuffer.wrap(readFully(in, 20, peer, deadline));
    int magic = h.getInt();
    int o = h.getInt();
    long sq = h.getLong();
    int n = h.getInt();
    if (magic != Handshake.MAGIC || o != op.ordinal() || sq != s || n < 0 || n > maxDoubles || (expected >= 0 && n != expected)) {
      throw new IOException(String.format("rank %d: malformed frame from rank %d (magic 0x%08x, op %d, seq %d, n %d; expected op %d seq %d n %d)",
          rank, peer, magic, o, sq, n, op.ordinal(), s, expected));
    }
    double[] v = new double[n];
    ByteBuffer.wrap(readFully(in, 8 * n, peer, deadline)).asDoubleBuffer().get(v);
    return v;
  }

  private byte[] readFully(InputStream in, int len, int peer, long deadline) throws IOException {
    byte[] b = new byte[len];
    int off = 0;
    while (off < len) {
      int r;
      try {
        awaitBriefly(in);
        r = in.read(b, off, len - off);
      } catch (SocketTimeoutException e) {
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("rank " + rank + " waited more than " + opTimeoutMs / 1000 + " s for rank " + peer + " ("
              + AllReduceKeys.OPERATION_TIMEOUT + ")");
        }
        ticker.tick();
        continue;
      } catch (SocketException e) {
        throw new PeerLost("rank " + rank + " lost rank " + peer + " (" + e.getMessage() + ")", e);
      }
      if (r < 0) throw new PeerLost("rank " + rank + " lost rank " + peer + " (connection closed)", new EOFException());
      off += r;
    }
    return b;
  }

  /**
   * Polls the socket for bytes a little before the blocking read: a resident solver's round is microseconds of arithmetic,
   * while a read that blocks costs a wake-up of tens of microseconds (Saddle-DSVC's rounds of O(k) scalars are bound by it).
   * The core is yielded now and then, for more tasks than cores.
   */
  private static void awaitBriefly(InputStream in) throws IOException {
    for (int i = 0; i < POLLS && in.available() == 0; i++) {
      if ((i & 15) == 15) Thread.yield();
      else Thread.onSpinWait();
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    closeQuietly(parent);
    synchronized (this) {
      for (Socket c : children) closeQuietly(c);
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    if (c == null) return;
    try {
      c.close();
    } catch (IOException e) {
      // closing
    }
  }
}
