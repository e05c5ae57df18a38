extension HTTPMethod: CustomStringConvertible {
    /// The method token.
    public var description: String { rawValue }
}
