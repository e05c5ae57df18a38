public import Foundation
import NALCore
import NALSupport

extension StubServer {
    /// Serves every Mocktail `.tail` file under `directory`, recursively (see `TailFile` for the format).
    ///
    /// Files are read and checked once, here. When several match a request, the one with the longest URL pattern
    /// wins, then the one whose path (relative to `directory`) sorts first. `{{ name }}` placeholders in bodies are
    /// filled from `placeholders`; one without a value is an error.
    ///
    /// - Throws: `FixtureError` naming the file and line of the first problem; nothing is registered then.
    @discardableResult
    public func loadTails(
        from directory: URL, placeholders: [String: String] = [:]
    ) throws(FixtureError)
        -> [StubHandle]
    {
        let tails = try Self.tailFiles(in: directory).map { file throws(FixtureError) in
            try TailFile(contentsOf: file, placeholders: placeholders)
        }
        let base = directory.standardizedFileURL.path + "/"
        // Later registrations win ties, so the path that sorts first is registered last.
        return tails.reversed().map { tail in
            let path = tail.file.standardizedFileURL.path
            let origin = path.hasPrefix(base) ? String(path.dropFirst(base.count)) : tail.file.lastPathComponent
            return register(tail.matcher, .repeating(tail.response), origin: origin)
        }
    }

    /// The `.tail` files under `directory`, by relative path.
    static func tailFiles(in directory: URL) throws(FixtureError) -> [URL] {
        let kind = FileKind(path: directory.path)
        guard kind == .directory else {
            let problem = kind == .regular ? "is a file" : kind.problem ?? "cannot be read"
            throw FixtureError(file: directory, message: "\(problem): name a directory of .tail files")
        }
        let base = directory.standardizedFileURL.path
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "tail" } ?? []
        return files.sorted {
            $0.standardizedFileURL.path.dropFirst(base.count) < $1.standardizedFileURL.path.dropFirst(base.count)
        }
    }

    /// Serves the entries of a HAR 1.2 file, as browsers' devtools, Charles, Proxyman and Insomnia export it.
    ///
    /// Each entry answers its method and URL, the query compared as a set (a value redacted in an export, such as
    /// `token=%3Credacted%3E`, matches any value), and its body too with `matchingBody`. Identical requests replay
    /// their responses in the order they appear; the last one repeats. Responses keep their status, headers (but not
    /// connection and framing headers, which NAL recomputes) and body (`content.text`, base64 or not). An entry of a
    /// failed request (status 0, or no response) replays as the network error the browser met (Chrome's `_error`),
    /// or a lost connection.
    ///
    /// - Throws: `FixtureError` with the line and column of broken JSON, or the entry that cannot be used.
    @discardableResult
    public func loadHAR(from file: URL, matchingBody: Bool = false) throws(FixtureError) -> [StubHandle] {
        try loadHAR(try FixtureError.contents(of: file), file: file, matchingBody: matchingBody)
    }

    /// Serves the entries of HAR bytes read from `file`.
    package func loadHAR(_ data: Data, file: URL, matchingBody: Bool) throws(FixtureError) -> [StubHandle] {
        var order: [HARStubKey] = []
        var responses: [HARStubKey: [StubResponse]] = [:]
        var firstIndex: [HARStubKey: Int] = [:]
        for (index, entry) in try HARReader.entries(of: data, file: file).enumerated() {
            let key = HARStubKey(
                method: entry.method, url: NormalizedURL(entry.url),
                body: matchingBody ? entry.requestBody ?? Data() : nil, source: entry.url)
            if responses[key] == nil {
                order.append(key)
                firstIndex[key] = index
            }
            responses[key, default: []].append(
                entry.failure.map { StubResponse.networkError($0) }
                    ?? StubResponse(
                        status: entry.status, headers: HARReader.replayedHeaders(entry.responseHeaders),
                        body: entry.method == "HEAD" ? Data() : entry.responseBody))
        }
        return order.map { key in
            var matcher = RequestMatcher.method(HTTPMethod(rawValue: key.method)) && .urlIgnoringQueryOrder(key.source)
            if let body = key.body { matcher = matcher && .body(body) }
            return register(
                matcher, .replay(responses[key] ?? []),
                origin: "\(file.lastPathComponent) entry \(firstIndex[key] ?? 0)")
        }
    }
}

/// What makes two HAR entries the same request.
private struct HARStubKey: Hashable {
    let method: String
    let url: NormalizedURL
    let body: Data?
    let source: URL

    static func == (lhs: HARStubKey, rhs: HARStubKey) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
    }
}
