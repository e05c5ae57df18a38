import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Docs: begin files-host
/// Where the examples' files are: the local httpbin that scripts/test.sh starts and
/// names in NAL_HTTPBIN_URL (without it, a file URL that no request can leave the
/// machine for).
let filesHost =
    ProcessInfo.processInfo.environment["NAL_HTTPBIN_URL"].flatMap(URL.init(string:))
    ?? URL(fileURLWithPath: "/")
// Docs: end files-host

// Docs: begin transfer-endpoint
enum Files: RemoteService {
    case archive(bytes: Int, saveTo: URL)
    case upload(URL)
    case form(MultipartFormData)

    var baseURL: URL { filesHost }

    var path: String {
        switch self {
        case .archive(let bytes, _): "bytes/\(bytes)"
        case .upload: "put"
        case .form: "post"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .archive: .get
        case .upload: .put
        case .form: .post
        }
    }

    var requestType: RequestType {
        switch self {
        // streamed to disk, moved into place
        case .archive(_, let destination): .download(.file(destination))
        // streamed from disk, never read whole
        case .upload(let file): .uploadFile(file)
        // in memory up to 10 MiB, else from a temporary file
        case .form(let form): .uploadMultipart(form)
        }
    }
}
// Docs: end transfer-endpoint

// Docs: begin transfer-progress
/// Downloads `target`, drawing a progress bar, and returns where the file is.
func download(_ target: Files, with client: Client<Files>) async throws -> URL? {
    for try await event in client.transfer(target) {
        switch event {
        case .progress(let progress):
            let done = Int((progress.fractionCompleted ?? 0) * 30)
            let bar =
                String(repeating: "#", count: done)
                + String(repeating: ".", count: 30 - done)
            print("\r[\(bar)] \(progress.bytesReceived) bytes", terminator: "")
        case .completed(let response):
            print()
            return response.fileURL
        }
    }
    return nil
}
// Docs: end transfer-progress

@Suite("README transfer examples", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct READMETransferExamples {
    @Test("the progress bar's download lands in the file; the upload and the form arrive")
    func examples() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = Client<Files>()
        let saved = try #require(
            try await download(.archive(bytes: 50_000, saveTo: directory.appendingPathComponent("a.bin")), with: client)
        )
        #expect(try Data(contentsOf: saved).count == 50_000)

        let file = directory.appendingPathComponent("notes.txt")
        try Data("notes".utf8).write(to: file)
        #expect(try await client.request(.upload(file)).string()?.contains("\"data\": \"notes\"") == true)

        // Docs: begin transfer-multipart
        var form = MultipartFormData()
        form.append("Ada", name: "name")
        form.append(fileAt: file, name: "notes")  // text/plain, from the extension
        form.append(Data([0x89, 0x50]), name: "icon", fileName: "icon.png")
        let response = try await client.request(.form(form))
        // Docs: end transfer-multipart
        let text = response.string() ?? ""
        #expect(text.contains("\"name\": \"Ada\"") && text.contains("\"notes\": \"notes\""))
    }
}
