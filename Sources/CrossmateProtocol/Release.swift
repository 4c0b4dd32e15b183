/// This build of Crossmate: the one place its version is written. `crossmate --version`, the
/// server's start line, its `/metrics` build information and the release archive's name all read
/// it from here.
public enum Release {
    public static let version = "0.22.0"
    /// When this version was cut.
    public static let date = "2026-11-28"
}
