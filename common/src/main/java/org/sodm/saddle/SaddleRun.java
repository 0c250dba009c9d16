package org.sodm.saddle;

import java.util.ArrayList;
import java.util.List;

/**
 * One run of Saddle-DSVC with k in-process clients and one parameter set (seed 002, Algorithm 4):
 * every round calls the clients in list order and reduces their messages with {@link SaddleServer}
 * in that order, counting rounds and scalars. With one client it is Saddle-SVC (Algorithm 2).
 */
final class SaddleRun {
  private final List<SaddleClient> clients;
  private final SaddleServer server;
  private final SaddleParameters params;
  private final double cap;
  private final SaddleOptions.ProjectionRule rule;
  private long iterations;
  private long iterationRounds;
  private long iterationScalars;
  private long checkRounds;
  private long checkScalars;

  /**
   * Initialises the clients (Algorithm 3, lines 12-13) for n1 + n2 points.
   *
   * @param cap the cap of the capped simplex (nu-SVM); &gt;= 1 for the plain simplex (no projection)
   */
  SaddleRun(List<SaddleClient> clients, SaddleParameters params, double cap, SaddleOptions.ProjectionRule rule, long seed,
      int n1, int n2) {
    this.clients = List.copyOf(clients);
    this.server = new SaddleServer(params.dimension(), seed);
    this.params = params;
    this.cap = cap;
    this.rule = rule;
    for (SaddleClient c : clients) c.initialize(n1, n2);
  }

  /** One iteration t -&gt; t + 1: rounds 1-3 and, for nu-SVM, the projection. */
  void iterate() {
    int k = clients.size();
    int i = server.nextCoordinate();
    List<SaddleClient.Deltas> deltas = new ArrayList<>(k);
    for (SaddleClient c : clients) deltas.add(c.momentumDots(i, params.theta()));
    SaddleClient.Deltas delta = SaddleServer.sumDeltas(deltas);
    List<SaddleClient.LogSums> sums = new ArrayList<>(k);
    for (SaddleClient c : clients) sums.add(c.exponentiate(i, delta, params));
    SaddleClient.Normalizers z = SaddleServer.normalizers(sums);
    for (SaddleClient c : clients) c.normalize(z);
    iterationRounds += 3;
    iterationScalars += 11L * k;
    if (cap < 1) project();
    for (SaddleClient c : clients) c.accumulate();
    iterations++;
  }

  private void project() {
    if (rule == SaddleOptions.ProjectionRule.SORTING) {
      clients.get(0).projectBySorting(cap);
      return;
    }
    int k = clients.size();
    while (true) {
      List<SaddleClient.CapSums> parts = new ArrayList<>(k);
      for (SaddleClient c : clients) parts.add(c.capSums(cap));
      SaddleClient.CapSums total = SaddleServer.sumCaps(parts);
      iterationRounds++;
      iterationScalars += 12L * k;
      if (total.done()) return;
      for (SaddleClient c : clients) c.cap(cap, total);
    }
  }

  /** A duality-gap check: one round of the clients' reports. */
  SaddleServer.Bounds check() {
    int count = SaddleServer.marginCount(cap);
    List<SaddleClient.CheckReport> reports = new ArrayList<>(clients.size());
    for (SaddleClient c : clients) {
      SaddleClient.CheckReport r = c.report(count);
      reports.add(r);
      checkScalars += r.scalars() + 1;
    }
    checkRounds++;
    return SaddleServer.bounds(reports, cap);
  }

  long iterations() {
    return iterations;
  }

  /** w[t], the same on every client (client 0's copy). */
  double[] w() {
    return clients.get(0).w();
  }

  SaddleResult.Communication communication() {
    return new SaddleResult.Communication(clients.size(), iterationRounds, iterationScalars, checkRounds, checkScalars);
  }
}
