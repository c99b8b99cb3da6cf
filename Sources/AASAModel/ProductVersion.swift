/// The version aasad and aasactl both print: one number for the pair, so a pipeline that
/// downloads aasactl from its aasad can check it got the matching one.
public enum ProductVersion {
    public static let current = "0.39.0"
}
