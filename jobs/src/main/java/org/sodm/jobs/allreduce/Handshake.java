package org.sodm.jobs.allreduce;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC-SHA256 challenge-response on every task-to-task connection (mutual: each side proves
 * it holds the job's secret without sending it), and the proofs of tracker calls.
 *
 * <pre>
 * server -> client   MAGIC, nonce_s (32 bytes)
 * client -> server   MAGIC, rank, nonce_c, HMAC(secret, "client" | nonce_s | rank)
 * server -> client   HMAC(secret, "server" | nonce_c | rank)
 * </pre>
 * Fixed-size fields only; anything else is refused with a {@link Refused}.
 */
final class Handshake {
  private Handshake() {}

  static final int MAGIC = 0x534f444d; // "SODM"
  static final int NONCE = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A connection that did not authenticate. */
  static final class Refused extends IOException {
    Refused(String msg) {
      super(msg);
    }
  }

  static byte[] newSecret() {
    byte[] s = new byte[32];
    RANDOM.nextBytes(s);
    return s;
  }

  static byte[] mac(byte[] secret, String role, byte[] nonce, int rank) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(secret, "HmacSHA256"));
      m.update(role.getBytes(StandardCharsets.UTF_8));
      m.update(nonce);
      m.update(new byte[] {(byte) (rank >>> 24), (byte) (rank >>> 16), (byte) (rank >>> 8), (byte) rank});
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  /** The proof of a tracker call: HMAC of its fields joined by '|', hex. */
  static String proof(byte[] secret, Object... fields) {
    StringBuilder sb = new StringBuilder();
    for (Object f : fields) sb.append(f).append('|');
    return HexFormat.of().formatHex(mac(secret, "tracker", sb.toString().getBytes(StandardCharsets.UTF_8), 0));
  }

  static boolean verify(byte[] secret, String proof, Object... fields) {
    return proof != null && MessageDigest.isEqual(proof.getBytes(StandardCharsets.UTF_8),
        proof(secret, fields).getBytes(StandardCharsets.UTF_8));
  }

  /** Server side: returns the authenticated client's rank. */
  static int accept(Socket s, byte[] secret) throws IOException {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] nonceS = new byte[NONCE];
    RANDOM.nextBytes(nonceS);
    out.writeInt(MAGIC);
    out.write(nonceS);
    out.flush();
    int magic = in.readInt();
    if (magic != MAGIC) throw new Refused(String.format("bad magic 0x%08x", magic));
    int rank = in.readInt();
    byte[] nonceC = new byte[NONCE];
    in.readFully(nonceC);
    byte[] got = new byte[32];
    in.readFully(got);
    if (!MessageDigest.isEqual(got, mac(secret, "client", nonceS, rank))) throw new Refused("wrong HMAC (not this job's secret), claimed rank " + rank);
    out.write(mac(secret, "server", nonceC, rank));
    out.flush();
    return rank;
  }

  /** Client side: proves rank {@code rank} and checks the server. */
  static void connect(Socket s, byte[] secret, int rank) throws IOException {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    DataInputStream in = new DataInputStream(s.getInputStream());
    int magic = in.readInt();
    if (magic != MAGIC) throw new Refused(String.format("peer sent bad magic 0x%08x", magic));
    byte[] nonceS = new byte[NONCE];
    in.readFully(nonceS);
    byte[] nonceC = new byte[NONCE];
    RANDOM.nextBytes(nonceC);
    out.writeInt(MAGIC);
    out.writeInt(rank);
    out.write(nonceC);
    out.write(mac(secret, "client", nonceS, rank));
    out.flush();
    byte[] got = new byte[32];
    in.readFully(got);
    if (!MessageDigest.isEqual(got, mac(secret, "server", nonceC, rank))) throw new Refused("peer failed the HMAC check");
  }
}
