import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Build step (jobs/pom.xml, after the shade of the -all jar): rewrites the Java 5 class files of the given packages inside a
 * jar as Java 8 class files - the same instructions, with the stack map frames the Java 6+ verifier needs computed by ASM -
 * so that the JDK's class-data sharing can archive them. JDK 17 leaves every class file older than Java 6 out of a CDS
 * archive ("Pre JDK 6 class not supported by CDS"): picocli's and reload4j's classes, loaded by every sodm command, were
 * then read, parsed and verified from the jar on every start (about 65 ms of `sodm --version`'s 0.37 s).
 *
 * <p>usage: java -cp asm.jar ModernClassFiles JAR PACKAGE/PREFIX... (the jar is replaced; a class that cannot be
 * rewritten, or linked to verify it - one whose frames or code need a class the jar does not have - is kept as it was, and
 * counted; one that does not verify fails the build).
 */
public final class ModernClassFiles {
  private ModernClassFiles() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) throw new IllegalArgumentException("usage: ModernClassFiles JAR PREFIX...");
    File jar = new File(args[0]);
    List<String> prefixes = Arrays.asList(args).subList(1, args.length);
    Map<String, byte[]> modern = new HashMap<>(); // class name -> its Java 8 class file
    int kept = 0;
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toURI().toURL()}, ClassLoader.getPlatformClassLoader());
        ZipInputStream in = new ZipInputStream(new FileInputStream(jar))) {
      ZipEntry e;
      while ((e = in.getNextEntry()) != null) {
        byte[] b = in.readAllBytes();
        if (!selected(e.getName(), prefixes) || major(b) >= Opcodes.V1_6) continue;
        byte[] m = modern(b, loader);
        if (m == null) kept++;
        else modern.put(e.getName().substring(0, e.getName().length() - ".class".length()).replace('/', '.'), m);
      }
    }
    int unlinked = verify(jar, modern);
    File tmp = new File(jar.getPath() + ".modern.tmp");
    try (ZipInputStream in = new ZipInputStream(new FileInputStream(jar)); ZipOutputStream out = new ZipOutputStream(new FileOutputStream(tmp))) {
      ZipEntry e;
      while ((e = in.getNextEntry()) != null) {
        byte[] b = in.readAllBytes();
        if (e.getName().endsWith(".class")) {
          byte[] m = modern.get(e.getName().substring(0, e.getName().length() - ".class".length()).replace('/', '.'));
          if (m != null) b = m;
        }
        ZipEntry o = new ZipEntry(e.getName());
        o.setTime(e.getTime());
        out.putNextEntry(o);
        out.write(b);
        out.closeEntry();
      }
    } catch (IOException | RuntimeException ex) {
      Files.deleteIfExists(tmp.toPath());
      throw ex;
    }
    Files.move(tmp.toPath(), jar.toPath(), StandardCopyOption.REPLACE_EXISTING);
    System.out.printf("%s: %d class files of %s rewritten as Java 8 class files and verified; %d kept as they were (%d whose "
        + "frames ASM could not compute, %d that need a class the jar does not have)%n", jar.getName(), modern.size(), prefixes,
        kept + unlinked, kept, unlinked);
  }

  /**
   * Links every rewritten class, as rewritten, which runs the JVM's verifier over its code and frames (reflection links a
   * class): a {@link VerifyError} fails the build. A class that cannot be linked for another reason - it needs a class the
   * jar does not have, as the original could not be either (optional dependencies of a logging appender) - is left out of
   * {@code modern} (kept as it was); returns how many.
   */
  static int verify(File jar, Map<String, byte[]> modern) throws IOException {
    List<String> unlinked = new ArrayList<>();
    try (URLClassLoader original = new URLClassLoader(new URL[] {jar.toURI().toURL()}, ClassLoader.getPlatformClassLoader())) {
      ClassLoader rewritten = new ClassLoader(ClassLoader.getPlatformClassLoader()) {
        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
          byte[] b = modern.get(name);
          if (b == null) {
            try (InputStream in = original.getResourceAsStream(name.replace('.', '/') + ".class")) {
              if (in == null) throw new ClassNotFoundException(name);
              b = in.readAllBytes();
            } catch (IOException e) {
              throw new ClassNotFoundException(name, e);
            }
          }
          return defineClass(name, b, 0, b.length);
        }
      };
      for (String c : modern.keySet()) {
        try {
          Class.forName(c, false, rewritten).getDeclaredMethods();
        } catch (VerifyError e) {
          throw new VerifyError(c + " as rewritten does not verify: " + e.getMessage());
        } catch (ClassNotFoundException | LinkageError e) {
          unlinked.add(c);
        }
      }
    }
    for (String c : unlinked) modern.remove(c);
    return unlinked.size();
  }

  static boolean selected(String name, List<String> prefixes) {
    if (!name.endsWith(".class")) return false;
    for (String p : prefixes) if (name.startsWith(p)) return true;
    return false;
  }

  /** The class file's major version (0 for what is not a class file). */
  static int major(byte[] b) {
    if (b.length < 8 || (b[0] & 0xff) != 0xCA || (b[1] & 0xff) != 0xFE || (b[2] & 0xff) != 0xBA || (b[3] & 0xff) != 0xBE) return 0;
    return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
  }

  /** The class as a Java 8 class file with computed frames, or null when ASM cannot compute them. */
  static byte[] modern(byte[] b, ClassLoader loader) {
    try {
      ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
        @Override
        protected ClassLoader getClassLoader() {
          return loader;
        }
      };
      new ClassReader(b).accept(new ClassVisitor(Opcodes.ASM9, w) {
        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
          super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
        }
      }, ClassReader.SKIP_FRAMES);
      return w.toByteArray();
    } catch (RuntimeException | LinkageError e) { // JSR/RET, or a type of the frames that the jar does not have
      return null;
    }
  }
}
