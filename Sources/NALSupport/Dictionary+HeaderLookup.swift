extension Dictionary where Key == String, Value == String {
    /// The key that names the header `name` in any letter case (header names are case-insensitive).
    package func headerKey(_ name: String) -> String? {
        keys.first { HTTPToken.equalsIgnoringASCIICase($0, name) }
    }

    /// The value of the header `name`, in any letter case.
    package func headerValue(_ name: String) -> String? {
        headerKey(name).flatMap { self[$0] }
    }
}
