#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Applies parameters to a request: into its URL query, its body, or anywhere else. Conform to write your own.
///
/// Throw `NALError` where you can; any other error is wrapped in `NALError.encoding(.parameterEncodingFailed)`.
public protocol ParameterEncoding: Sendable {
    /// Returns `request` with `parameters` applied.
    func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest
}
