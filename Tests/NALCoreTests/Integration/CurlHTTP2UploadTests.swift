#if os(Linux)
    import Foundation
    import NALCore
    import NALTestSupport
    import Testing

    /// Request bodies over HTTP/2 through CurlTransport, checked byte for byte by the HTTP/2 server's SHA-256 of what
    /// arrived: in memory, from a file (past the stream's 64 KiB window), and multipart.
    @Suite("CurlTransport uploads over HTTP/2", .enabled(if: H2Server.url != nil, H2Server.skipReason))
    struct CurlHTTP2UploadTests {
        let client: Client<TestEndpoint>

        init() throws {
            let authority = try #require(H2Server.certificateAuthority)
            client = Client<TestEndpoint>(transport: try CurlTransport(certificateAuthorities: authority))
        }

        /// What the server saw of `requestType`, sent with `method`.
        func upload(_ requestType: RequestType, method: HTTPMethod = .post) async throws -> H2Server.Answer {
            var endpoint = H2Server.endpoint("upload")
            endpoint.method = method
            endpoint.requestType = requestType
            let answer = try await client.request(endpoint).decode(H2Server.Answer.self)
            #expect(answer.protocol_ == "h2")
            return answer
        }

        func file(_ bytes: Int64) throws -> (url: URL, sha256: String) {
            let url = try TransferFiles.scratchDirectory().appendingPathComponent("upload.bin")
            try TransferFiles.writeFile(url, size: bytes)
            return (url, try TransferFiles.sha256(of: url))
        }

        @Test("bodies in memory arrive whole, with their length and type, for POST, PUT and PATCH")
        func inMemory() async throws {
            let (source, digest) = try file(300_000)
            defer { try? FileManager.default.removeItem(at: source.deletingLastPathComponent()) }
            let data = try Data(contentsOf: source)
            for method in [HTTPMethod.post, .put, .patch] {
                let answer = try await upload(.uploadData(data), method: method)
                #expect(answer.method == method.rawValue)
                #expect(answer.bodyLength == data.count)
                #expect(answer.bodySHA256 == digest)
                #expect(answer.contentLength == "\(data.count)")
            }
            let json = try await upload(.jsonEncodable(["name": "nal"]))
            #expect(json.bodyLength == #"{"name":"nal"}"#.utf8.count)
            #expect(json.contentType == "application/json")
            let empty = try await upload(.uploadData(Data()))
            #expect(empty.bodyLength == 0)
        }

        @Test("a file of 3 MB streams from disk and arrives byte for byte")
        func fromFile() async throws {
            let (source, digest) = try file(3_000_000)
            defer { try? FileManager.default.removeItem(at: source.deletingLastPathComponent()) }
            let answer = try await upload(.uploadFile(source), method: .put)
            #expect(answer.bodyLength == 3_000_000)
            #expect(answer.bodySHA256 == digest)
            #expect(answer.contentLength == "3000000")
        }

        @Test("multipart bodies, in memory and with a file part, arrive with their boundary and every byte")
        func multipart() async throws {
            let (source, _) = try file(1_000_000)
            defer { try? FileManager.default.removeItem(at: source.deletingLastPathComponent()) }
            let small = try await upload(
                .uploadMultipart([MultipartFormBodyPart(provider: .data(Data("one".utf8)), name: "a")]))
            #expect(small.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect((small.bodyLength ?? 0) > 3)
            #expect(small.contentLength == small.bodyLength.map { "\($0)" })
            let parts = [
                MultipartFormBodyPart(provider: .data(Data("two".utf8)), name: "b"),
                MultipartFormBodyPart(provider: .file(source), name: "file", fileName: "upload.bin"),
            ]
            let large = try await upload(.uploadMultipart(parts))
            #expect(large.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect((large.bodyLength ?? 0) > 1_000_000)
            #expect(large.contentLength == large.bodyLength.map { "\($0)" })
        }
    }
#endif
