import Foundation
import NALCore
import NALMiddleware

/// The five steps of `nal-cli demo`, each told in a few lines, with NAL's logs between them.
struct DemoStory {
    let base: URL
    let transport: any Transport
    let live: Bool
    let terminal: Terminal

    func run() async -> Bool {
        let credentials = DemoCommand.Credentials()
        let api = base
        let plain = Client<DemoAPI>(middleware: [LoggingMiddleware(options: [])], transport: transport)
        let auth = AccessTokenMiddleware(
            token: { _ in await credentials.token },
            refresh: {
                _ = try await plain.request(DemoAPI(baseURL: api, call: .refreshToken("r3fresh-t0ken-9")))
                await credentials.store(DemoCommand.fresh)
            })
        let client = Client<DemoAPI>(
            middleware: [
                auth, RetryMiddleware(baseDelay: .milliseconds(100)), LoggingMiddleware(options: [.headers]),
            ], transport: transport)
        var passed = true
        for step in steps {
            terminal.out("")
            terminal.out(terminal.bold(step.title))
            let clock = ContinuousClock()
            let start = clock.now
            do {
                let summary = try await step.body(client, self)
                terminal.out("   \(terminal.green("✓")) \(summary) (\(Self.milliseconds(clock.now - start)) ms)")
            } catch {
                passed = false
                terminal.out("   \(terminal.red("✗")) \(error)")
            }
        }
        return passed
    }

    func target(_ call: DemoAPI.Call) -> DemoAPI { DemoAPI(baseURL: base, call: call) }

    struct Step {
        let title: String
        let body: (Client<DemoAPI>, DemoStory) async throws -> String
    }

    var steps: [Step] {
        [
            Step(title: "1. A 401, a token refresh, then success") { client, story in
                let user = try await client.request(story.target(.profile), as: DemoModels.Authenticated.self)
                return "signed in as \(user.user) after refreshing the expired credentials once"
            },
            Step(title: "2. A 503 with Retry-After, a retry, then success") { client, story in
                do throws(NALError) {
                    let response = try await client.request(story.target(.status))
                    return "\(response.statusCode) on attempt 2, after waiting the 1 s the server asked for"
                } catch {
                    guard story.live, error.response?.statusCode == 503 else { throw error }
                    return "httpbin's /status/503 never recovers: still 503 after 3 attempts, as RetryMiddleware allows"
                }
            },
            Step(title: "3. A paginated list, decoded into models") { client, story in
                var pages: [String] = []
                for page in 1...3 {
                    let response = try await client.request(story.target(.repositories(page: page)))
                    let echo = try response.decode(DemoModels.Echo.self)
                    pages.append(echo.args["page"] ?? "?")
                    guard response.link("next") != nil else { break }
                }
                return "read pages \(pages.joined(separator: ", ")), following Link: rel=\"next\" until it ended"
            },
            Step(title: "4. A multipart upload") { client, story in
                var form = MultipartFormData()
                form.append("Ada Lovelace", name: "name")
                form.append(Data(repeating: 0x2A, count: 2048), name: "avatar", fileName: "ada.png")
                let upload = try await client.request(story.target(.avatar(form)), as: DemoModels.Upload.self)
                return "the server received the field name=\(upload.form["name"] ?? "?") and the file avatar "
                    + "(\(upload.files["avatar"]?.count ?? 0) characters as echoed)"
            },
            Step(title: "5. A throttled download with a progress bar") { client, story in
                let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "nal-demo-\(UUID().uuidString).bin")
                defer { try? FileManager.default.removeItem(at: destination) }
                let bytes = story.live ? 2_000 : 3_000_000
                var last = ""
                for try await event in client.transfer(story.target(.archive(saveTo: destination, bytes: bytes))) {
                    switch event {
                    case .progress(let progress):
                        last = ProgressBar.line(
                            fraction: progress.fractionCompleted, bytes: progress.bytesReceived,
                            total: progress.totalBytesToReceive)
                        if story.terminal.outputIsTTY {
                            FileHandle.standardOutput.write(Data("\r   \(last)".utf8))
                        }
                    case .completed(let response):
                        story.terminal.out(story.terminal.outputIsTTY ? "" : "   \(last)")
                        let size =
                            (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size]) as? NSNumber
                        return "saved \(size?.intValue ?? 0) bytes to a file (status \(response.statusCode)), "
                            + "streamed to disk, never held in memory"
                    }
                }
                throw NALError.cancelled
            },
        ]
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
