import Foundation
import NALStubbing
import NALTestSupport
import Testing

#if os(Linux)
    /// The listener's loop threads (`nal.stubs`) wait in poll(2) once nothing is due: a deadline the loop keeps
    /// looking at after it passed would spin a core. Read from `/proc`, hence Linux only.
    @Suite("The listener's loops wait without spinning once their deadlines have passed")
    struct ListenerLoopIdleTests {
        /// The CPU time, in ticks of 1/100 s, that the threads named `nal.stubs` have used.
        static func loopTicks() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.reduce(0) { total, task in
                guard
                    let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                    name.trimmingCharacters(in: .whitespacesAndNewlines) == "nal.stubs",
                    let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let end = stat.lastIndex(of: ")")
                else { return total }
                // After the name: state, then 10 fields, then utime and stime (fields 14 and 15 of proc(5)).
                let fields = stat[stat.index(after: end)...].split(separator: " ")
                guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return total }
                return total + user + system
            }
        }

        @Test("a connection idled out, then a second of nothing: the loops use next to no CPU")
        func idleAfterDeadlines() async throws {
            var options = ListenerOptions()
            options.timeouts.idle = .milliseconds(200)
            let server = StubServer()
            server.stub(.any, response: .string("x"))
            let listener = try server.listen(host: "127.0.0.1", port: 0, as: nil, options: options)
            defer { Task { await listener.stop() } }
            let socket = try RawSocket(port: listener.port)
            await socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let (answer, closed) = await socket.receive(quiet: .seconds(3))
            #expect(responseStatuses(answer) == [200] && closed, "the connection did not idle out")
            try await Task.sleep(for: .milliseconds(300))
            let before = Self.loopTicks()
            try await Task.sleep(for: .seconds(1))
            let used = Self.loopTicks() - before
            // A spinning loop uses about 100 ticks a second; other tests' listeners use a few.
            #expect(used < 50, "the loops used \(used) ticks of CPU in a second with nothing to do")
        }
    }
#endif
