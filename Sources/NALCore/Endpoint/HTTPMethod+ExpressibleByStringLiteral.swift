extension HTTPMethod: ExpressibleByStringLiteral {
    /// Creates a method from a literal, so `"PROPFIND"` can stand where an `HTTPMethod` is expected.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }
}
