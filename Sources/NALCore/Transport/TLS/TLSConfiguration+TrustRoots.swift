public import Foundation

extension TLSConfiguration {
    /// Where the trusted certificate authorities come from.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's certificate authorities, as libcurl finds them.
        case system
        /// The certificates of a PEM file, and no others: the system's are not trusted then (a private CA's
        /// bundle, or a copy of the system's with one added).
        case pemFile(URL)
    }
}
