package dev.richter.shop;

/** Typed reads of the shop's environment variables, each with a default. */
final class Env {

  private Env() {}

  /** The variable's value, or {@code def} when unset or blank. */
  static String str(String name, String def) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? def : v.trim();
  }

  /**
   * The variable as an int, or {@code def} when unset.
   *
   * @throws IllegalArgumentException if it is set but not an integer
   */
  static int integer(String name, int def) {
    String v = str(name, null);
    if (v == null) {
      return def;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, got: " + v, e);
    }
  }

  /** True when the variable is {@code 1}, {@code true} or {@code yes} (case-insensitive). */
  static boolean flag(String name) {
    String v = str(name, "0").toLowerCase();
    return v.equals("1") || v.equals("true") || v.equals("yes");
  }
}
