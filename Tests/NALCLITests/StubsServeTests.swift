import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `nal-cli stubs serve` as a process: fixtures served to curl-like clients over a port, the admin endpoints, a
/// clean stop on SIGINT and SIGTERM, and clear errors.
@Suite("nal-cli stubs serve as a process")
struct StubsServeTests {
    static let fixtures = CLIProcessTests.repository.appendingPathComponent("Tests/NALStubbingTests/Fixtures")

    /// A running `nal-cli stubs serve` and the URL its first line named.
    final class Served: @unchecked Sendable {
        let process = Process()
        let errors = Pipe()
        var url = ""

        init(_ arguments: [String]) async throws {
            process.executableURL = try CLIProcessTests.executableURL()
            process.arguments = ["stubs", "serve"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            url = await withCheckedContinuation { continuation in
                Thread {
                    var line = Data()
                    while !line.contains(0x0A) {
                        let data = output.fileHandleForReading.availableData
                        if data.isEmpty { break }
                        line += data
                    }
                    continuation.resume(
                        returning: String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self))
                }.start()
            }
        }

        deinit {
            // A test that failed before stopping it leaves no server behind.
            if process.isRunning { process.terminate() }
        }

        /// Sends `signal` and waits for the exit: the status and what was written on standard error.
        func stop(_ signal: Int32) async -> (status: Int32, errors: String) {
            kill(process.processIdentifier, signal)
            return await withCheckedContinuation { continuation in
                Thread { [process, errors] in
                    process.waitUntilExit()
                    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    continuation.resume(returning: (process.terminationStatus, text))
                }.start()
            }
        }
    }

    static func fetch(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil
    ) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("serves .tail and HAR fixtures on the port its first line names; the journal is JSON; SIGTERM exits 0")
    func serves() async throws {
        let served = try await Served([
            Self.fixtures.appendingPathComponent("tails/good").path,
            Self.fixtures.appendingPathComponent("har/chrome.har").path, "--port", "0", "--placeholder", "name=Ada",
            "--placeholder", "team=core",
        ])
        #expect(served.url.hasPrefix("http://127.0.0.1:"), "first line: \(served.url)")
        #expect(try await Self.fetch(served.url + "/__nal/health").status == 200)
        let avatar = try await Self.fetch(served.url + "/api/v1/avatars/7.png")
        #expect(avatar.status == 200)
        // A HAR entry, matched by path and query whatever its origin (https://www.google.com in the file).
        let logo = try await Self.fetch(
            served.url + "/images/branding/googlelogo/2x/googlelogo_light_color_272x92dp.png")
        #expect(logo.status == 200)
        _ = try await Self.fetch(
            served.url + "/api/v1/avatars/8.png?access_token=TOKEN", headers: ["Authorization": "Bearer SECRET"])
        let journal = try await Self.fetch(served.url + "/__nal/requests")
        #expect(journal.status == 200)
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(journal.body.utf8)) as? [[String: Any]])
        #expect(entries.count == 3, "\(journal.body)")
        #expect((entries.first?["url"] as? String)?.hasSuffix("/api/v1/avatars/7.png") == true, "\(journal.body)")
        #expect(!journal.body.contains("SECRET") && journal.body.contains("Bearer <redacted>"), "\(journal.body)")
        #expect(!journal.body.contains("TOKEN") && journal.body.contains("access_token="), "\(journal.body)")
        #expect(try await Self.fetch(served.url + "/__nal/requests", method: "DELETE").status == 204)
        let emptied = try await Self.fetch(served.url + "/__nal/requests")
        #expect((try JSONSerialization.jsonObject(with: Data(emptied.body.utf8)) as? [Any])?.isEmpty == true)
        // The fixtures' catch-all answers what nothing else does.
        #expect(try await Self.fetch(served.url + "/no/such/path").status == 404)
        let (status, errors) = await served.stop(SIGTERM)
        #expect(status == 0, "\(errors)")
        #expect(errors.contains("Stopped."))
    }

    @Test("stubs added over HTTP answer, are listed, and go with DELETE or a reset; the files' stubs stay")
    func stubsOverHTTP() async throws {
        let served = try await Served([
            Self.fixtures.appendingPathComponent("tails/good").path, "--port", "0", "--placeholder", "name=Ada",
            "--placeholder", "team=core",
        ])
        let tail = "GET\n/added/\\d+$\n201\nContent-Type: text/plain\n\nadded over HTTP"
        let posted = try await Self.fetch(served.url + "/__nal/stubs", method: "POST", body: tail)
        #expect(posted.status == 201, "\(posted.body)")
        #expect(posted.body.contains("\"id\""), "\(posted.body)")
        let answer = try await Self.fetch(served.url + "/added/42")
        #expect(answer.status == 201 && answer.body == "added over HTTP", "\(answer)")
        let listed = try await Self.fetch(served.url + "/__nal/stubs")
        let stubs = try #require(try JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [[String: Any]])
        let descriptions = stubs.compactMap { $0["stub"] as? String }
        let added = descriptions.filter { $0.hasPrefix("POST /__nal/stubs: ") }
        #expect(added.count == 1 && added[0].contains("/added/\\d+$"), "\(listed.body)")
        // In the order they are tried: the catch-all (`.*`, the shortest pattern) last.
        #expect(descriptions.last?.contains("URL pattern .*") == true, "\(listed.body)")
        // A broken file is refused with its line, and adds nothing.
        let broken = try await Self.fetch(served.url + "/__nal/stubs", method: "POST", body: "GET\n/x\nnot-a-status\n")
        #expect(broken.status == 400 && broken.body.contains("/__nal/stubs:3:"), "\(broken)")
        let count = stubs.count
        #expect(
            (try JSONSerialization.jsonObject(with: Data(try await Self.fetch(served.url + "/__nal/stubs").body.utf8))
                as? [Any])?.count == count)
        let deleted = try await Self.fetch(served.url + "/__nal/stubs", method: "DELETE")
        #expect(deleted.status == 200 && deleted.body.contains("\"removed\" : 1"), "\(deleted)")
        #expect(try await Self.fetch(served.url + "/added/42").status == 404)
        #expect(try await Self.fetch(served.url + "/api/v1/avatars/7.png").status == 200)
        // A reset removes the stubs added since and empties the journal.
        _ = try await Self.fetch(served.url + "/__nal/stubs", method: "POST", body: tail)
        let reset = try await Self.fetch(served.url + "/__nal/reset", method: "POST")
        #expect(reset.status == 200 && reset.body.contains("\"removed\" : 1"), "\(reset)")
        #expect(try await Self.fetch(served.url + "/added/42").status == 404)
        let journal = try await Self.fetch(served.url + "/__nal/requests")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(journal.body.utf8)) as? [Any])
        // Only the request after the reset.
        #expect(entries.count == 1, "\(journal.body)")
        #expect(try await Self.fetch(served.url + "/__nal/reset", method: "GET").status == 405)
        _ = await served.stop(SIGTERM)
    }

    @Test("--as matches HAR entries as sent to their origin; SIGINT exits 0")
    func answersAsAnOrigin() async throws {
        let served = try await Served([
            Self.fixtures.appendingPathComponent("har/chrome.har").path, "--port", "0", "--as",
            "https://www.google.com",
        ])
        let logo = try await Self.fetch(
            served.url + "/images/branding/googlelogo/2x/googlelogo_light_color_272x92dp.png")
        #expect(logo.status == 200)
        let (status, errors) = await served.stop(SIGINT)
        #expect(status == 0, "\(errors)")
    }

    @Test("a missing path, a broken fixture, a port in use and a bad --as are clear errors, without a trace")
    func errors() async throws {
        let missing = try await CLIProcessTests.run("stubs", "serve", "/no/such/fixtures", "--port", "0")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("/no/such/fixtures: does not exist"), "\(missing.standardError)")
        let broken = try await CLIProcessTests.run(
            "stubs", "serve", Self.fixtures.appendingPathComponent("tails/bad/bad-base64").path, "--port", "0")
        #expect(broken.status == 1)
        #expect(broken.standardError.contains("bad-base64.tail:6:"), "\(broken.standardError)")
        let served = try await Served([Self.fixtures.appendingPathComponent("har/chrome.har").path, "--port", "0"])
        let port = try #require(served.url.split(separator: ":").last.map(String.init))
        let taken = try await CLIProcessTests.run(
            "stubs", "serve", Self.fixtures.appendingPathComponent("har/chrome.har").path, "--port", port)
        #expect(taken.status == 1)
        #expect(taken.standardError.contains("the port is in use"), "\(taken.standardError)")
        _ = await served.stop(SIGTERM)
        let badOrigin = try await CLIProcessTests.run(
            "stubs", "serve", Self.fixtures.appendingPathComponent("har/chrome.har").path, "--as", "ftp://x")
        #expect(badOrigin.status == 1)
        #expect(badOrigin.standardError.contains("ftp://x is not an origin"), "\(badOrigin.standardError)")
        for result in [missing, broken, taken, badOrigin] {
            #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Stack dump"))
        }
    }
}
