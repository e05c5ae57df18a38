/// NAL's version, as `nal-cli --version` prints it and the default `User-Agent` sends it.
public enum NALVersion {
    /// The version of this build, `major.minor.patch`.
    public static let current = "0.4.0"
}
