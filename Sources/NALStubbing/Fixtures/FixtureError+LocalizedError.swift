public import Foundation

/// The sentence `description` gives, through Foundation's routes too: `localizedDescription`, and an `NSError`'s
/// description once bridged (on Linux, `(error as CustomStringConvertible).description` prints the bridged `NSError`).
extension FixtureError: LocalizedError, CustomNSError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }

    /// The sentence as the localized description and the failure reason, which `NSError`'s description shows.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: description]
    }
}
