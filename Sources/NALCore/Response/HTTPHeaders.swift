import NALSupport

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#else
    package import Foundation
#endif

/// Header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// A `Response` holds its headers in name order: Foundation hands them over as a dictionary, so the order the
/// server sent them in is not known. Equality ignores order and the letter case of names.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// Name and value pairs.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from pairs, kept in the given order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The value of the first field named `name`, in any letter case.
    public subscript(_ name: String) -> String? {
        fields.first { HTTPToken.equalsIgnoringASCIICase($0.name, name) }?.value
    }

    /// Number of fields.
    public var count: Int { fields.count }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Whether both hold the same fields, in any order, with names compared in any letter case.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        func normalized(_ headers: HTTPHeaders) -> [(String, String)] {
            headers.fields.map { ($0.name.lowercased(), $0.value) }.sorted { $0 < $1 }
        }
        return normalized(lhs).elementsEqual(normalized(rhs)) { $0 == $1 }
    }
}

extension HTTPHeaders {
    /// The fields by name, a repeated name's values joined with `, ` as RFC 9110 §5.3 combines them: the one
    /// conversion to a dictionary that logs, recordings and stubs share.
    package var dictionary: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in fields {
            let key = result.headerKey(name) ?? name
            result[key] = result[key].map { "\($0), \(value)" } ?? value
        }
        return result
    }

    /// The header fields of `response`.
    package init(_ response: HTTPURLResponse) {
        self.init(
            response.allHeaderFields
                .map { (name: $0.key as? String ?? "\($0.key)", value: $0.value as? String ?? "\($0.value)") }
                .sorted { $0.name < $1.name })
    }
}
