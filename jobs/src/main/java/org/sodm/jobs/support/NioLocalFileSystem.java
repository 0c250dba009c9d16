package org.sodm.jobs.support;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's checksummed local file system, with permissions read and set through java.nio
 * instead of a child process. Without the native hadoop library (not on Maven Central, absent
 * on these machines) {@link RawLocalFileSystem} runs {@code chmod} for every file and directory
 * it creates and {@code ls -ld} for every permission it reads: a plain {@code sodm train} on
 * ijcnn1 forked 3,740 processes from a 3 GB JVM (strace), about a third of the run's CPU. With
 * the native library loaded, Hadoop's own code is used unchanged. Registered for {@code file:}
 * by {@code fs.file.impl} in sodm-default.xml; the files, checksums and permissions written are
 * the same as with {@link LocalFileSystem}.
 */
public class NioLocalFileSystem extends LocalFileSystem {
  public NioLocalFileSystem() {
    super(new Raw());
  }

  /** The raw (unchecksummed) layer with the java.nio permission calls. */
  public static class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (NativeIO.isAvailable() || !posix() || (permission.toShort() & ~0777) != 0) {
        // native chmod, a non-POSIX file system, or sticky/setuid bits that nio cannot set
        super.setPermission(p, permission);
        return;
      }
      Files.setPosixFilePermissions(pathToFile(p).toPath(), toPosix(permission.toShort()));
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
      return withPermissions(super.getFileStatus(f));
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
      FileStatus[] s = super.listStatus(f);
      if (s == null) return null;
      for (int i = 0; i < s.length; i++) s[i] = withPermissions(s[i]);
      return s;
    }

    /** The status with owner, group and permission read by java.nio (no {@code ls -ld}). */
    private FileStatus withPermissions(FileStatus s) throws IOException {
      if (NativeIO.isAvailable() || !posix() || s.isSymlink()) return s;
      File file = pathToFile(s.getPath());
      PosixFileAttributes a;
      try {
        a = Files.readAttributes(file.toPath(), PosixFileAttributes.class);
      } catch (java.nio.file.NoSuchFileException e) {
        // removed since the listing: let Hadoop's lazy status report it as it would
        return s;
      }
      return new FileStatus(s.getLen(), s.isDirectory(), s.getReplication(), s.getBlockSize(), s.getModificationTime(),
          s.getAccessTime(), new FsPermission(fromPosix(a.permissions())), a.owner().getName(), a.group().getName(),
          s.getPath());
    }

    private static final boolean POSIX = java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private static boolean posix() {
      return POSIX;
    }
  }

  private static final PosixFilePermission[] BITS = {
    PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
    PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
  };

  /** The rwx bits of an octal mode (bit i of the mode = BITS[i]). */
  static Set<PosixFilePermission> toPosix(short mode) {
    Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
    for (int i = 0; i < BITS.length; i++) {
      if ((mode & (1 << i)) != 0) s.add(BITS[i]);
    }
    return s;
  }

  static short fromPosix(Set<PosixFilePermission> perms) {
    int mode = 0;
    for (int i = 0; i < BITS.length; i++) {
      if (perms.contains(BITS[i])) mode |= 1 << i;
    }
    return (short) mode;
  }
}
