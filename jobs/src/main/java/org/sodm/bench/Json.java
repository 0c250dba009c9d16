package org.sodm.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader and writer for the benchmark harness (train-report.json, metrics.json,
 * the results file): objects become {@code LinkedHashMap<String,Object>}, arrays {@code List<Object>},
 * numbers {@code Double}, plus {@code String}, {@code Boolean} and {@code null}. No dependency.
 */
public final class Json {
  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  /** Parses one JSON value (the whole text). */
  public static Object parse(String text) {
    Json p = new Json(text);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != p.s.length()) throw p.error("trailing characters");
    return v;
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) throw new IllegalArgumentException("JSON: expected an object");
    return (Map<String, Object>) v;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + i);
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
  }

  private Object value() {
    if (i >= s.length()) throw error("unexpected end");
    char c = s.charAt(i);
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return literal("true", Boolean.TRUE);
      case 'f': return literal("false", Boolean.FALSE);
      case 'n': return literal("null", null);
      default: return number();
    }
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) throw error("bad literal");
    i += word.length();
    return v;
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    ws();
    if (peek() == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      if (peek() != '"') throw error("expected a key");
      String k = string();
      ws();
      if (peek() != ':') throw error("expected ':'");
      i++;
      ws();
      m.put(k, value());
      ws();
      char c = peek();
      i++;
      if (c == '}') return m;
      if (c != ',') throw error("expected ',' or '}'");
    }
  }

  private List<Object> array() {
    List<Object> a = new ArrayList<>();
    i++;
    ws();
    if (peek() == ']') {
      i++;
      return a;
    }
    while (true) {
      ws();
      a.add(value());
      ws();
      char c = peek();
      i++;
      if (c == ']') return a;
      if (c != ',') throw error("expected ',' or ']'");
    }
  }

  private char peek() {
    if (i >= s.length()) throw error("unexpected end");
    return s.charAt(i);
  }

  private String string() {
    StringBuilder b = new StringBuilder();
    i++;
    while (true) {
      char c = peek();
      i++;
      if (c == '"') return b.toString();
      if (c == '\\') {
        char e = peek();
        i++;
        switch (e) {
          case 'n': b.append('\n'); break;
          case 't': b.append('\t'); break;
          case 'r': b.append('\r'); break;
          case 'b': b.append('\b'); break;
          case 'f': b.append('\f'); break;
          case 'u':
            if (i + 4 > s.length()) throw error("bad \\u escape");
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
            break;
          default: b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private Double number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
    if (start == i) throw error("unexpected character '" + s.charAt(i) + "'");
    try {
      return Double.valueOf(s.substring(start, i));
    } catch (NumberFormatException e) {
      throw error("bad number");
    }
  }

  /** Writes a value (maps, lists, numbers, strings, booleans, null) as indented JSON. */
  public static String write(Object v) {
    StringBuilder b = new StringBuilder();
    write(b, v, 0);
    return b.append('\n').toString();
  }

  private static void write(StringBuilder b, Object v, int depth) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof String str) {
      quote(b, str);
    } else if (v instanceof Boolean) {
      b.append(v);
    } else if (v instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) b.append("null");
      else if (d == Math.rint(d) && Math.abs(d) < 1e15) b.append((long) d);
      else b.append(n instanceof Double || n instanceof Float ? fmt(d) : n.toString());
    } else if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        b.append("{}");
        return;
      }
      boolean flat = m.values().stream().noneMatch(x -> x instanceof Map || x instanceof List);
      b.append('{');
      int k = 0;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (k++ > 0) b.append(flat ? ", " : ",");
        if (!flat) indent(b, depth + 1);
        quote(b, String.valueOf(e.getKey()));
        b.append(": ");
        write(b, e.getValue(), depth + 1);
      }
      if (!flat) indent(b, depth);
      b.append('}');
    } else if (v instanceof List<?> l) {
      if (l.isEmpty()) {
        b.append("[]");
        return;
      }
      boolean flat = l.stream().noneMatch(x -> x instanceof Map || x instanceof List);
      b.append('[');
      int k = 0;
      for (Object x : l) {
        if (k++ > 0) b.append(flat ? ", " : ",");
        if (!flat) indent(b, depth + 1);
        write(b, x, depth + 1);
      }
      if (!flat) indent(b, depth);
      b.append(']');
    } else {
      quote(b, v.toString());
    }
  }

  private static String fmt(double d) {
    String r = Double.toString(d);
    // shortest round-trip form, but avoid "1.0E-4" style where a plain form is as short
    return r.contains("E") ? r.replace("E", "e") : r;
  }

  private static void indent(StringBuilder b, int depth) {
    b.append('\n');
    for (int k = 0; k < depth; k++) b.append("  ");
  }

  private static void quote(StringBuilder b, String str) {
    b.append('"');
    for (int k = 0; k < str.length(); k++) {
      char c = str.charAt(k);
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\t': b.append("\\t"); break;
        case '\r': b.append("\\r"); break;
        default:
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
      }
    }
    b.append('"');
  }

  /** Convenience accessors for parsed values. */
  public static Double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : null;
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> obj(Object o) {
    return o instanceof Map ? (Map<String, Object>) o : null;
  }

  @SuppressWarnings("unchecked")
  public static List<Object> arr(Object o) {
    return o instanceof List ? (List<Object>) o : null;
  }
}
