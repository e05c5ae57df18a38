package import Foundation
import NALSupport

extension TailFile {
    /// A `.tail` file's bytes: the method pattern, the URL pattern, the status, the headers, a blank line and the
    /// body. A body that is not UTF-8, or that holds `{{` (which a `.tail` body reads as a placeholder), is written
    /// in base64 with `;base64` added to its Content-Type (`application/octet-stream` when it had none), so that it
    /// loads back byte for byte; so is the body of a type that itself ends in `;base64`.
    static func contents(
        methodPattern: String, urlPattern: String, status: Int, headers: [String: String], body: Data
    ) -> Data {
        var headers = headers
        var body = body
        let typeKey = headers.headerKey("Content-Type") ?? "Content-Type"
        // A type that already ends in `;base64` would be read as the marker: its body is encoded, and marked again.
        let typeLooksMarked = headers[typeKey]?.lowercased().hasSuffix(";base64") ?? false
        if String(data: body, encoding: .utf8) == nil || body.firstRange(of: Data("{{".utf8)) != nil
            || typeLooksMarked
        {
            headers[typeKey] = (headers[typeKey] ?? "application/octet-stream") + ";base64"
            body = Data(body.base64EncodedString(options: .lineLength76Characters).utf8)
        }
        var text = "\(methodPattern)\n\(urlPattern)\n\(status)\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\n" }
        return Data((text + "\n").utf8) + body
    }

    /// This file as it would be written again.
    package var contents: Data {
        Self.contents(
            methodPattern: methodPattern, urlPattern: urlPattern, status: response.status, headers: response.headers,
            body: response.body.inMemory ?? Data())
    }
}
