import NALSupport
import Synchronization

#if canImport(FoundationNetworking)
    package import Foundation
    package import FoundationNetworking
#else
    package import Foundation
#endif

/// A response's `HTTPURLResponse` and `HTTPHeaders`, each built at most once, on first access, and shared by every
/// copy of the `Response`.
///
/// Foundation's initialiser costs more than the rest of a fast call's work in NAL (on Linux it capitalises every
/// field name through `NSString`), and most callers never read the object. A head from a transport keeps its
/// fields until then; the object made at once holds only the status, so that there is always one to return.
package final class LazyHTTPResponse: Sendable {
    private final class BuiltHeaders: Sendable {
        let headers: HTTPHeaders
        init(_ headers: HTTPHeaders) { self.headers = headers }
    }

    package let statusCode: Int
    /// The head whose fields are not yet in an `HTTPURLResponse`, or `nil` for a response that came ready-made.
    private let head: ResponseHead?
    /// The status alone, made at once: the answer should Foundation refuse the fields (corelibs never does).
    private let statusOnly: HTTPURLResponse
    private let built = AtomicLazyReference<HTTPURLResponse>()
    private let builtHeaders = AtomicLazyReference<BuiltHeaders>()

    /// Wraps a response someone already made.
    package init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        head = nil
        statusOnly = response
        _ = built.storeIfNil(response)
    }

    /// Keeps `head` until its `HTTPURLResponse` is asked for; `nil` when Foundation cannot make a response of its
    /// URL and status.
    package init?(_ head: ResponseHead) {
        guard
            let statusOnly = HTTPURLResponse(
                url: head.url, statusCode: head.statusCode, httpVersion: head.version, headerFields: nil)
        else { return nil }
        statusCode = head.statusCode
        self.head = head
        self.statusOnly = statusOnly
    }

    /// Foundation's response, made on first access.
    package var response: HTTPURLResponse {
        if let existing = built.load() { return existing }
        guard let head else { return statusOnly }
        var fields = head.joinedFields
        // Foundation reads a file name out of Content-Disposition as it makes the object, in time that grows with the
        // square of the value (a 200 KB value took 1.1 s): it gets the disposition and the file name NAL reads out
        // of the value instead. `headers` and `value(forField:)` keep the whole value.
        for (name, value) in fields
        where value.utf8.count > Self.longestDisposition
            && HTTPToken.equalsIgnoringASCIICase(name, "Content-Disposition")
        {
            fields[name] = Self.shortened(disposition: value)
        }
        let made =
            HTTPURLResponse(url: head.url, statusCode: head.statusCode, httpVersion: head.version, headerFields: fields)
            ?? statusOnly
        return built.storeIfNil(made)
    }

    /// The most bytes of a `Content-Disposition` value given to Foundation as it came: 4 KiB, ten times the longest
    /// file name a file system takes, percent-encoded.
    package static let longestDisposition = 4 << 10

    /// A short `Content-Disposition` that says what a longer `value` says to Foundation: its disposition type and
    /// the file name NAL reads out of it (`attachment; filename="a.txt"`, the form corelibs Foundation reads), the
    /// type alone without one.
    package static func shortened(disposition value: String) -> String {
        let type = value.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        var short = type.utf8.count <= 256 ? type : "attachment"
        if let name = ContentDisposition.fileName(value), name.utf8.count <= longestDisposition - 300,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            short += "; filename=\"" + name.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return short
    }

    /// Whether `response` has been made: for tests.
    package var isMade: Bool { built.load() != nil }

    /// The URL that answered, without making Foundation's response.
    package var url: URL? { head?.url ?? statusOnly.url }

    /// The HTTP version the response came in, without making Foundation's response.
    package var version: String { head?.version ?? "HTTP/1.1" }

    /// The status line's reason phrase, `nil` when the head was not read from one.
    package var reasonPhrase: String? { head?.reasonPhrase }

    /// The header fields in name order, as `Response.headers` gives them.
    package var headers: HTTPHeaders {
        if let existing = builtHeaders.load() { return existing.headers }
        var headers = HTTPHeaders(response)
        // Foundation was given a long Content-Disposition cut short (see `response`): the headers keep all of it.
        if let head,
            let whole = head.joinedFields.first(where: {
                HTTPToken.equalsIgnoringASCIICase($0.key, "Content-Disposition")
            })?.value, whole.utf8.count > Self.longestDisposition
        {
            headers = HTTPHeaders(
                headers.fields.map { field in
                    HTTPToken.equalsIgnoringASCIICase(field.name, "Content-Disposition")
                        ? (name: field.name, value: whole) : field
                })
        }
        return builtHeaders.storeIfNil(BuiltHeaders(headers)).headers
    }

    /// Whether the head has fields named `name` with different values (two `Location`s naming different URLs);
    /// `false` for a response that came ready-made, whose fields were merged before.
    package func hasConflictingValues(forField name: String) -> Bool {
        guard let head else { return false }
        return Set(head.values(of: name)).count > 1
    }

    /// The value of the field named `name`, in any letter case, as `HTTPURLResponse.value(forHTTPHeaderField:)`
    /// gives it, without making the object for it.
    package func value(forField name: String) -> String? {
        guard let head else { return response.value(forHTTPHeaderField: name) }
        return head.value(of: name)
    }
}
